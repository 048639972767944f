import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  chooseRelease,
  compareVersions,
  describeConflict,
  detectWorkspaceReleases,
  findWorkspaceReleaseFiles,
  fromFile,
  fromHostPackages,
  fromImageTags,
  fromLockFile,
  fromPyproject,
  fromRequirements,
  fromServerInfo,
  fromSetting,
  nearestKnownRelease,
  normalizeVersion,
  parseSpecifier,
  parseVersion,
  pickRelease,
  poetryToPep440,
  releaseFileKind,
  satisfies,
  type ReleaseCandidate,
  type TextRange,
} from '../../src/core/release';
import { parseToml, tomlGet, TomlError } from '../../src/core/release/toml';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'release');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

/** The text a range covers. */
function at(text: string, r: TextRange | undefined): string {
  assert.ok(r, 'a range');
  const lines = text.split('\n');
  if (r.line === r.endLine) return lines[r.line].slice(r.character, r.endCharacter);
  return [lines[r.line].slice(r.character), ...lines.slice(r.line + 1, r.endLine), lines[r.endLine].slice(0, r.endCharacter)].join('\n');
}

const brief = (cs: ReleaseCandidate[]): [string, boolean][] => cs.map((c) => [c.version, c.exact]);

const KNOWN = ['0.3.0', '0.4.6', '0.4.6.post1', '0.4.6.post5', '0.5.0rc2', '0.5.0', '0.5.2', '0.5.3rc0', '0.5.6', '0.5.9', '0.5.10', '0.5.10.post1', '0.5.12'];

describe('release versions (PEP 440)', () => {
  it('parses the forms SGLang uses and normalizes them', () => {
    assert.equal(normalizeVersion('0.3.0'), '0.3.0');
    assert.equal(normalizeVersion('0.4.6.post5'), '0.4.6.post5');
    assert.equal(normalizeVersion('0.5.0rc2'), '0.5.0rc2');
    assert.equal(normalizeVersion('v0.5.12'), '0.5.12');
    assert.equal(normalizeVersion('V0.5.6-post2'), '0.5.6.post2');
    assert.equal(normalizeVersion('0.0.0.dev0'), '0.0.0.dev0');
    assert.equal(normalizeVersion('0.5.6+CU130'), '0.5.6+cu130');
    assert.equal(normalizeVersion(' 0.5.0-RC.2 '), '0.5.0rc2');
    assert.equal(normalizeVersion('1.0-1'), '1.0.post1');
    assert.equal(normalizeVersion('1!0.5'), '1!0.5');
    assert.deepEqual(parseVersion('0.5.6+cu130'), { epoch: 0, release: [0, 5, 6], local: ['cu130'] });
    for (const bad of ['', 'latest', 'dev', '0.5.6-cu130', 'v', '0.5.', '1' + '0'.repeat(30), 'x'.repeat(10_000)]) {
      assert.equal(parseVersion(bad), undefined, bad.slice(0, 40));
    }
  });

  it('orders versions: dev < a < rc < final < local < post; 0.5.10 > 0.5.9', () => {
    const order = [
      '0.0.0.dev0',
      '0.5.0.dev0',
      '0.5.0a1',
      '0.5.0rc0',
      '0.5.0rc2',
      '0.5.0',
      '0.5.0+cu130',
      '0.5.0.post1.dev0',
      '0.5.0.post1',
      '0.5.1',
      '0.5.9',
      '0.5.10',
      'v0.5.12',
    ];
    for (let i = 0; i + 1 < order.length; i++) {
      assert.ok(compareVersions(order[i], order[i + 1]) < 0, `${order[i]} < ${order[i + 1]}`);
      assert.ok(compareVersions(order[i + 1], order[i]) > 0, `${order[i + 1]} > ${order[i]}`);
    }
    assert.equal(compareVersions('0.5', '0.5.0'), 0);
    assert.equal(compareVersions('v0.5.12', '0.5.12'), 0);
    assert.ok(compareVersions('0.5.0rc2', '0.5.0') < 0 && compareVersions('0.5.0', '0.5.0.post1') < 0 && compareVersions('0.5.0.post1', '0.5.1') < 0);
    assert.ok(compareVersions('0.5.0.dev1', '0.5.0rc0') < 0, 'dev < rc');
    assert.ok(compareVersions('0.5.6+cu130', '0.5.6+cu124') > 0 && compareVersions('1.0+abc.5', '1.0+abc.abc') > 0, 'numbers after words in local parts');
    const sorted = [...KNOWN].reverse().sort(compareVersions);
    assert.deepEqual(sorted, KNOWN);
    assert.ok(compareVersions('junk', '0.1') < 0, 'a non-version sorts first, no throw');
  });

  it('checks PEP 440 specifiers', () => {
    const cases: [string, string, boolean][] = [
      ['0.5.6', '==0.5.6', true],
      ['0.5.6.0', '==0.5.6', true],
      ['0.5.6+cu130', '==0.5.6', true],
      ['0.5.6', '==0.5.6+cu130', false],
      ['0.5.6.post1', '==0.5.6', false],
      ['0.4.6', '>=0.4.6,<0.5', true],
      ['0.4.9.post2', '>=0.4.6, <0.5', true],
      ['0.5.0', '>=0.4.6,<0.5', false],
      ['0.5.0rc1', '>=0.4.6,<0.5', false],
      ['0.5.0rc1', '<0.5.0rc2', true],
      ['0.5.2', '~=0.5.2', true],
      ['0.5.12', '~=0.5.2', true],
      ['0.6.0', '~=0.5.2', false],
      ['0.5.1', '~=0.5.2', false],
      ['0.9', '~=0.5', true],
      ['1.0', '~=0.5', false],
      ['v0.5.6', '===v0.5.6', true],
      ['0.5.6', '===v0.5.6', false],
      ['0.5.3', '!=0.5.3', false],
      ['0.5.4', '!=0.5.3', true],
      ['0.5.6', '==0.5.*', true],
      ['0.5.6.post2', '==0.5.*', true],
      ['0.6.0', '==0.5.*', false],
      ['0.5', '==0.5.0.*', true],
      ['0.5.6', '!=0.5.*', false],
      ['0.5.6.post1', '>0.5.6', false],
      ['0.5.7', '>0.5.6', true],
      ['0.5.6+cu130', '>0.5.6', false],
      ['0.5.6', '<=0.5.6', true],
      ['0.5.6', '', true],
      ['0.5.6', '^0.4 || ==0.5.6', false], // `^` is Poetry's, not PEP 440: the whole specifier is invalid
      ['0.5.6', '>=0.4,<0.5 || ==0.5.6', true],
      ['0.5.6', '0.5.6', true],
      ['0.5.6', '>=0.5.*', false], // a wildcard only with == and !=: invalid, satisfies nothing
      ['junk', '>=0.1', false],
    ];
    for (const [v, spec, want] of cases) assert.equal(satisfies(v, spec), want, `${v} ${spec}`);
    assert.equal(satisfies('0.5.0rc2', '>=0.4'), true, 'a version that exists may be a pre-release');
    assert.equal(satisfies('0.5.0rc2', '>=0.4', { prereleases: false }), false);
    assert.equal(satisfies('0.5.0rc2', '>=0.5.0rc0', { prereleases: false }), true, 'named in the specifier');
    assert.equal(parseSpecifier('~=1'), undefined, '~= needs two release parts');
    assert.equal(parseSpecifier('>=0.5+cu130'), undefined, 'a local label only with ==');
  });

  it('picks the newest known release a specifier allows, pre-releases only when needed', () => {
    assert.equal(pickRelease('>=0.5.2', KNOWN), '0.5.12');
    assert.equal(pickRelease('', KNOWN), '0.5.12');
    assert.equal(pickRelease('>=0.4.6,<0.5', KNOWN), '0.4.6.post5');
    assert.equal(pickRelease('~=0.5.2', KNOWN), '0.5.12');
    assert.equal(pickRelease('==0.5.*', KNOWN), '0.5.12');
    assert.equal(pickRelease('==0.5.10', KNOWN), '0.5.10');
    assert.equal(pickRelease('<0.5.3', KNOWN), '0.5.2', 'not 0.5.3rc0');
    assert.equal(pickRelease('>=0.5.3rc0,<0.5.4', KNOWN), '0.5.3rc0', 'a named pre-release is allowed');
    assert.equal(pickRelease('>0.5.2,<0.5.4', ['0.5.2', '0.5.3rc0']), '0.5.3rc0', 'only a pre-release satisfies');
    assert.equal(pickRelease('>=0.9', KNOWN), undefined);
    assert.equal(pickRelease('not a spec', KNOWN), undefined);
    assert.equal(pickRelease('>=0.5', ['junk', 'v0.5.12', '0.5.9']), 'v0.5.12', 'returns the known text as given');
    assert.equal(nearestKnownRelease('0.5.6.post2', KNOWN), '0.5.6');
    assert.equal(nearestKnownRelease('0.5.6+cu130', KNOWN), '0.5.6');
    assert.equal(nearestKnownRelease('0.5.11', KNOWN), '0.5.10.post1');
    assert.equal(nearestKnownRelease('0.2.0', KNOWN), undefined);
  });

  it('turns Poetry constraints into PEP 440 (caret and tilde)', () => {
    assert.deepEqual(poetryToPep440('^0.5.2'), { specifier: '>=0.5.2,<0.6.0', exact: false });
    assert.deepEqual(poetryToPep440('^1.2.3'), { specifier: '>=1.2.3,<2.0.0', exact: false });
    assert.deepEqual(poetryToPep440('^0.0.3'), { specifier: '>=0.0.3,<0.0.4', exact: false });
    assert.deepEqual(poetryToPep440('^0.0'), { specifier: '>=0.0,<0.1.0', exact: false });
    assert.deepEqual(poetryToPep440('^0'), { specifier: '>=0,<1.0.0', exact: false });
    assert.deepEqual(poetryToPep440('^0.4.6.post1'), { specifier: '>=0.4.6.post1,<0.5.0', exact: false });
    assert.deepEqual(poetryToPep440('~0.5.2'), { specifier: '>=0.5.2,<0.6.0', exact: false });
    assert.deepEqual(poetryToPep440('~0.5'), { specifier: '>=0.5,<0.6.0', exact: false });
    assert.deepEqual(poetryToPep440('~0'), { specifier: '>=0,<1.0.0', exact: false });
    assert.deepEqual(poetryToPep440('~=0.5.2'), { specifier: '~=0.5.2', exact: false });
    assert.deepEqual(poetryToPep440('0.5.2'), { specifier: '==0.5.2', exact: true });
    assert.deepEqual(poetryToPep440('==0.5.2'), { specifier: '==0.5.2', exact: true });
    assert.deepEqual(poetryToPep440('0.5.*'), { specifier: '==0.5.*', exact: false });
    assert.deepEqual(poetryToPep440('*'), { specifier: '', exact: false });
    assert.deepEqual(poetryToPep440('>= 0.4.6, < 0.5'), { specifier: '>=0.4.6,<0.5', exact: false });
    assert.deepEqual(poetryToPep440('>=0.4.6 <0.5'), { specifier: '>=0.4.6,<0.5', exact: false });
    assert.deepEqual(poetryToPep440('^0.4 || ^0.5'), { specifier: '>=0.4,<0.5.0 || >=0.5,<0.6.0', exact: false });
    assert.equal(poetryToPep440('^banana'), undefined);
    assert.equal(pickRelease(poetryToPep440('^0.5.2')!.specifier, KNOWN), '0.5.12');
    assert.equal(pickRelease(poetryToPep440('^0.4 || ^0.3')!.specifier, KNOWN), '0.4.6.post5');
  });
});

describe('release sources', () => {
  it('fromServerInfo reads /server_info version', () => {
    const c = fromServerInfo({ version: '0.5.6.post2', model_path: 'x', tp_size: 1 });
    assert.deepEqual(c && [c.version, c.exact, c.source], ['0.5.6.post2', true, 'server']);
    assert.match(fromServerInfo('{"version": "v0.5.12"}', 'http://gpu1:30000')!.detail, /0\.5\.12.*http:\/\/gpu1:30000/);
    for (const bad of [undefined, null, 42, [], {}, { version: 5 }, { version: 'latest' }, '{not json', '"0.5.6"'])
      assert.equal(fromServerInfo(bad), undefined);
  });

  it('fromHostPackages counts sglang only, not the kernel packages', () => {
    assert.equal(fromHostPackages({ sglang: '0.5.6', 'sgl-kernel': '0.3.9' })?.version, '0.5.6');
    assert.equal(fromHostPackages({ SGLang: '0.5.6' })?.version, '0.5.6');
    assert.equal(fromHostPackages({ sglang: { found: true, version: '0.5.6+cu130' } }, 'gpu1')?.detail, 'sglang 0.5.6+cu130 installed on gpu1');
    assert.equal(fromHostPackages({ 'sgl-kernel': '0.5.6', sgl_kernel: '0.5.6', 'sglang-kernel': '0.5.6', 'sglang-router': '0.5.6' }), undefined);
    assert.equal(fromHostPackages({ sglang: { found: false, version: '0.5.6' } }), undefined);
    assert.equal(fromHostPackages({ sglang: 'unknown' }), undefined);
    assert.equal(fromHostPackages(undefined), undefined);
  });

  it('fromSetting: a version, a specifier, or unset', () => {
    assert.deepEqual(brief([fromSetting('v0.5.6')!]), [['0.5.6', true]]);
    assert.deepEqual(brief([fromSetting('>= 0.5.2')!]), [['>=0.5.2', false]]);
    assert.equal(fromSetting('0.5.6', 'inferenceDoctor.flags.sglangRelease')!.detail, 'SGLang 0.5.6, set in inferenceDoctor.flags.sglangRelease');
    for (const unset of ['', '  ', 'auto', 'latest', 'Newest', 'banana', 42, undefined, null]) assert.equal(fromSetting(unset), undefined, String(unset));
  });

  it('fromImageTags: compose image: keys, not the router, digests, or volumes', () => {
    const text = fixture('docker-compose.yml');
    const cs = fromImageTags(text, 'deploy/docker-compose.yml');
    assert.deepEqual(brief(cs), [['0.5.12', true]]);
    assert.equal(cs[0].source, 'image');
    assert.equal(cs[0].detail, 'image tag lmsysorg/sglang:v0.5.12-cu130 in docker-compose.yml line 4');
    assert.equal(at(text, cs[0].range), 'v0.5.12');
    assert.equal(cs[0].range!.line, 3);
  });

  it('fromImageTags: Kubernetes image:, other registries, pre-release and nightly tags', () => {
    const text = fixture('deployment.yaml');
    const cs = fromImageTags(text, 'deployment.yaml');
    assert.deepEqual(brief(cs), [
      ['0.5.3rc0', true],
      ['', false],
    ]);
    assert.equal(at(text, cs[0].range), 'v0.5.3rc0');
    assert.match(cs[1].detail, /nightly-dev-20250601-abcdef.*development build/);
    assert.equal(at(text, cs[1].range), 'registry.example.com:5000/ml/sglang:nightly-dev-20250601-abcdef');
  });

  it('fromImageTags: Dockerfile FROM with ARG variables', () => {
    const text = fixture('Dockerfile');
    const cs = fromImageTags(text, 'Dockerfile');
    assert.deepEqual(brief(cs), [['0.5.6', true]]);
    assert.match(
      cs[0].detail,
      /lmsysorg\/sglang:v\$\{SGLANG_VERSION\}-\$\{CUDA\} = lmsysorg\/sglang:v0\.5\.6-cu130 in Dockerfile line 4 \(SGLANG_VERSION=0\.5\.6 on line 2/,
    );
    assert.equal(cs[0].range!.line, 1, 'points at the ARG value');
    assert.equal(at(text, cs[0].range), '0.5.6');
    assert.deepEqual(brief(fromImageTags('FROM lmsysorg/sglang:v0.5.12-cu130 AS base\n', 'Dockerfile')), [['0.5.12', true]]);
    assert.deepEqual(brief(fromImageTags('FROM --platform=linux/amd64 docker.io/lmsysorg/sglang:v0.4.6.post1-cu124\n', 'Dockerfile')), [['0.4.6.post1', true]]);
    assert.deepEqual(fromImageTags('ARG SGLANG_VERSION\nFROM lmsysorg/sglang:${SGLANG_VERSION}\n', 'Dockerfile'), [], 'a build arg given elsewhere');
    assert.deepEqual(brief(fromImageTags('FROM lmsysorg/sglang:${SGLANG_VERSION:-v0.5.2}\n', 'Dockerfile')), [['0.5.2', true]]);
    assert.deepEqual(brief(fromImageTags('FROM lmsysorg/sglang\n', 'Dockerfile')), [['', false]], 'untagged: latest');
  });

  it('fromImageTags: Helm values with repository and tag on separate keys', () => {
    const text = fixture('values.yaml');
    const cs = fromImageTags(text, 'charts/sglang/values.yaml');
    assert.deepEqual(brief(cs), [['0.5.12', true]]);
    assert.equal(at(text, cs[0].range), 'v0.5.12');
    assert.equal(cs[0].range!.line, 5);
    assert.match(cs[0].detail, /^Helm image lmsysorg\/sglang:v0\.5\.12-cu130 in values\.yaml lines 4-6/);
    assert.deepEqual(brief(fromImageTags('image: {repository: lmsysorg/sglang, tag: v0.5.9}\n', 'values.yaml')), [['0.5.9', true]]);
    assert.deepEqual(fromImageTags('image:\n  repository: lmsysorg/sglang\n', 'values.yaml'), [], "no tag: the chart's default");
    const list = 'images:\n  - repository: lmsysorg/sglang\n    tag: v0.5.6\n  - repository: lmsysorg/sglang\n    tag: v0.5.9\n';
    assert.deepEqual(brief(fromImageTags(list, 'values.yaml')), [
      ['0.5.6', true],
      ['0.5.9', true],
    ]);
  });

  it('fromImageTags: shell docker run, a tag in a variable, a continued command', () => {
    const text = fixture('run.sh');
    const cs = fromImageTags(text, 'scripts/run.sh');
    assert.deepEqual(brief(cs), [['0.4.6.post1', true]]);
    assert.equal(at(text, cs[0].range), 'v0.4.6.post1');
    assert.match(cs[0].detail, /lmsysorg\/sglang:\$TAG = lmsysorg\/sglang:v0\.4\.6\.post1-cu124 in run\.sh line 8 \(TAG=/);
    assert.deepEqual(brief(fromImageTags('docker run --gpus all lmsysorg/sglang:v0.4.6.post1-cu124 python3 -m sglang.launch_server\n', 'x.sh')), [
      ['0.4.6.post1', true],
    ]);
    const continued = 'docker run --gpus all \\\n  -p 30000:30000 \\\n  lmsysorg/sglang \\\n  python3 -m sglang.launch_server\n';
    assert.deepEqual(brief(fromImageTags(continued, 'x.sh')), [['', false]]);
    assert.deepEqual(fromImageTags('cd src/sglang\ngit clone https://github.com/sgl-project/sglang\npip install sglang==0.5.6\n', 'x.sh'), []);
    assert.deepEqual(brief(fromImageTags('apptainer pull docker://lmsysorg/sglang:v0.5.6-cu126\n', 'x.sh')), [['0.5.6', true]]);
    assert.deepEqual(brief(fromImageTags('docker pull ${REGISTRY}/lmsysorg/sglang:v0.5.9\n', 'x.sh')), [['0.5.9', true]]);
  });

  it('fromImageTags: latest, dev, own tags, digests, lookalikes', () => {
    const one = (s: string): [string, boolean][] => brief(fromImageTags(s, 'docker-compose.yml'));
    assert.deepEqual(one('image: lmsysorg/sglang:latest'), [['', false]]);
    assert.deepEqual(one('image: lmsysorg/sglang:dev'), [['', false]]);
    assert.deepEqual(one('image: lmsysorg/sglang'), [['', false]]);
    assert.deepEqual(one('image: lmsysorg/sglang:blackwell'), []);
    assert.deepEqual(one(`image: lmsysorg/sglang@sha256:${'a'.repeat(64)}`), []);
    assert.deepEqual(one(`image: lmsysorg/sglang:v0.5.6-cu130@sha256:${'a'.repeat(64)}`), [['0.5.6', true]]);
    assert.deepEqual(one('image: lmsysorg/sglang-router:v0.1.9'), []);
    assert.deepEqual(one('image: lmsysorg/sglangx:v0.5.6'), []);
    assert.deepEqual(one('image: lmsysorg/notsglang:v0.5.6'), []);
    assert.deepEqual(one('image: sglang:v0.5.6'), [], 'a bare name is too easily something else');
    assert.deepEqual(one('image: vllm/vllm-openai:v0.10.0'), []);
    assert.deepEqual(one("image: 'ghcr.io/acme/sglang:0.5.10.post1-cu128'"), [['0.5.10.post1', true]]);
    assert.deepEqual(one('image: ${SGLANG_IMAGE:-lmsysorg/sglang:v0.5.6}'), [['0.5.6', true]]);
    assert.deepEqual(one('image: lmsysorg/sglang:${SGLANG_TAG}'), [], 'set in .env, outside this file');
    assert.deepEqual(one('    # image: lmsysorg/sglang:v0.3.0'), []);
  });

  it('fromRequirements: pins, ranges, extras, markers, options, comments', () => {
    const text = fixture('requirements.txt');
    const cs = fromRequirements(text, '/work/app/requirements.txt');
    assert.deepEqual(brief(cs), [['>=0.4.6.post1,<0.6', false]]);
    assert.equal(cs[0].source, 'requirements');
    assert.equal(at(text, cs[0].range), '>=0.4.6.post1,<0.6');
    assert.match(cs[0].detail, /^sglang\[all\]>=0\.4\.6\.post1,<0\.6 ; python_version >= "3\.10" in requirements\.txt line 5$/);
    const one = (s: string): [string, boolean][] => brief(fromRequirements(s));
    assert.deepEqual(one('sglang==0.5.6'), [['0.5.6', true]]);
    assert.deepEqual(one('sglang===0.5.6'), [['0.5.6', true]]);
    assert.deepEqual(one('SGLang == v0.5.6'), [['0.5.6', true]]);
    assert.deepEqual(one('sglang[srt] ~= 0.5.2'), [['~=0.5.2', false]]);
    assert.deepEqual(one('sglang[all]>=0.4.6.post1'), [['>=0.4.6.post1', false]]);
    assert.deepEqual(one('sglang==0.5.*'), [['==0.5.*', false]]);
    assert.deepEqual(one('sglang (>=0.5, <0.6)'), [['>=0.5,<0.6', false]]);
    assert.deepEqual(one('sglang'), [['', false]]);
    assert.deepEqual(one('sglang ; sys_platform == "linux"'), [['', false]]);
    assert.deepEqual(one('  sglang==0.5.6  # pinned for the B200s'), [['0.5.6', true]]);
    assert.deepEqual(one('# sglang==0.5.6'), []);
    assert.deepEqual(one('sglang-router==0.1.9\nsgl-kernel==0.3.9\nsglang_kernel==0.3\nsglangx==1'), []);
    assert.deepEqual(one('sglang @ git+https://github.com/sgl-project/sglang.git@v0.5.6#subdirectory=python'), [['0.5.6', true]]);
    assert.deepEqual(one('sglang @ https://example.com/wheels/sglang-0.5.6.post2-py3-none-any.whl'), [['0.5.6.post2', true]]);
    assert.deepEqual(one('sglang @ git+https://github.com/sgl-project/sglang.git@main#subdirectory=python'), []);
    assert.deepEqual(one('-e git+https://github.com/sgl-project/sglang.git@v0.5.6#egg=sglang&subdirectory=python'), [['0.5.6', true]]);
    assert.deepEqual(one('-e ./sglang/python[all]\n-e "python[all]"'), []);
    assert.deepEqual(one('sglang>=banana'), []);
    const range = fromRequirements('torch\n  sglang[all] == 0.5.6 ; python_version>"3"\n')[0].range;
    assert.deepEqual(range, { line: 1, character: 17, endLine: 1, endCharacter: 22 });
  });

  it('fromRequirements: pip-compile output with hashes is a lock', () => {
    const text = fixture('requirements-pinned.txt');
    const cs = fromRequirements(text, 'requirements-pinned.txt');
    assert.deepEqual(brief(cs), [['0.5.6', true]]);
    assert.equal(cs[0].source, 'lock');
    assert.equal(at(text, cs[0].range), '0.5.6');
  });

  it('fromPyproject: PEP 621 dependencies and optional dependencies; uv sources and prose ignored', () => {
    const text = fixture('pyproject.toml');
    const cs = fromPyproject(text);
    assert.deepEqual(brief(cs), [
      ['0.5.6', true],
      ['>=0.4.6,<0.5', false],
    ]);
    assert.equal(at(text, cs[0].range), '0.5.6');
    assert.equal(cs[0].range!.line, 12);
    assert.equal(cs[0].detail, 'sglang[all]==0.5.6 in pyproject.toml [project] dependencies, line 13');
    assert.equal(at(text, cs[1].range), '>=0.4.6, <0.5');
    assert.match(cs[1].detail, /\[project\.optional-dependencies\] legacy, line 17/);
    assert.ok(cs.every((c) => c.source === 'pyproject'));
  });

  it('fromPyproject: Poetry caret and tilde become ranges; tables and group tables', () => {
    const text = fixture('pyproject-poetry.toml');
    const cs = fromPyproject(text);
    assert.deepEqual(brief(cs), [
      ['>=0.5.2,<0.6.0', false],
      ['>=0.4.6,<0.5.0', false],
    ]);
    assert.equal(at(text, cs[0].range), '^0.5.2');
    assert.match(cs[0].detail, /Poetry's \^0\.5\.2 is >=0\.5\.2,<0\.6\.0/);
    assert.match(cs[1].detail, /\[tool\.poetry\.group\.old\.dependencies\]/);
    assert.equal(pickRelease(cs[0].version, KNOWN), '0.5.12');
    assert.equal(pickRelease(cs[1].version, KNOWN), '0.4.6.post5');
    const exact = fromPyproject('[tool.poetry.dependencies]\nsglang = {version = "0.5.2", extras = ["all"]}\n');
    assert.deepEqual(brief(exact), [['0.5.2', true]]);
    const git = fromPyproject('[tool.poetry.dependencies]\nsglang = { git = "https://github.com/sgl-project/sglang.git", tag = "v0.5.6" }\n');
    assert.deepEqual(brief(git), [['0.5.6', true]]);
    const multi = fromPyproject(
      '[tool.poetry.dependencies]\nsglang = [\n  {version = "^0.5", python = ">=3.10"},\n  {version = "^0.4", python = "<3.10"},\n]\n',
    );
    assert.deepEqual(brief(multi), [
      ['>=0.5,<0.6.0', false],
      ['>=0.4,<0.5.0', false],
    ]);
    assert.deepEqual(fromPyproject('[tool.uv.sources]\nsglang = { path = "../sglang/python", editable = true }\n'), []);
    assert.deepEqual(fromPyproject('[project\ndependencies = ["sglang==0.5.6"'), [], 'not TOML');
    const escaped = fromPyproject('[project]\ndependencies = ["sglang\\u005Ball]==0.5.6"]\n');
    assert.deepEqual(brief(escaped), [['0.5.6', true]]);
    assert.equal(escaped[0].range!.line, 1, 'an escaped string: the whole string');
  });

  it('fromLockFile: uv.lock, poetry.lock, pdm.lock, Pipfile.lock, requirements.lock', () => {
    const uv = fixture('uv.lock');
    const u = fromLockFile(uv, 'uv.lock');
    assert.deepEqual(brief(u), [['0.5.6', true]]);
    assert.equal(u[0].source, 'lock');
    assert.equal(at(uv, u[0].range), '0.5.6');
    assert.equal(u[0].range!.line, 11);
    assert.equal(u[0].detail, 'sglang 0.5.6 locked in uv.lock line 12');

    const poetry = fixture('poetry.lock');
    const p = fromLockFile(poetry, 'poetry.lock');
    assert.deepEqual(brief(p), [['0.4.6.post5', true]]);
    assert.equal(at(poetry, p[0].range), '0.4.6.post5');

    const pdm = fixture('pdm.lock');
    assert.deepEqual(brief(fromLockFile(pdm, 'pdm.lock')), [['0.5.0rc2', true]]);

    const pip = fixture('Pipfile.lock');
    const pf = fromLockFile(pip, 'Pipfile.lock');
    assert.deepEqual(brief(pf), [['0.5.10.post1', true]]);
    assert.equal(at(pip, pf[0].range), '0.5.10.post1');
    assert.match(pf[0].detail, /Pipfile\.lock \(default\) line 17/);

    const req = 'sglang==0.5.6 \\\n    --hash=sha256:abc\n';
    const r = fromLockFile(req, 'requirements.lock');
    assert.deepEqual(brief(r), [['0.5.6', true]]);
    assert.equal(r[0].source, 'lock');

    // One bad line elsewhere: the line reader still finds the package.
    const broken = uv.replace('requires-python = ">=3.10"', 'requires-python = >=3.10"');
    assert.deepEqual(brief(fromLockFile(broken, 'uv.lock')), [['0.5.6', true]]);
    assert.deepEqual(fromLockFile('{"default": {"sglang": {"version": "*"}}}', 'Pipfile.lock'), []);
    assert.deepEqual(fromLockFile('{not json', 'Pipfile.lock'), []);
  });

  it('fromFile dispatches by file name; releaseFileKind names the files looked at', () => {
    assert.equal(releaseFileKind('requirements-dev.txt'), 'requirements');
    assert.equal(releaseFileKind('/a/b/requirements.lock'), 'lock');
    assert.equal(releaseFileKind('C:\\work\\uv.lock'), 'lock');
    assert.equal(releaseFileKind('Pipfile.lock'), 'lock');
    assert.equal(releaseFileKind('pyproject.toml'), 'pyproject');
    assert.equal(releaseFileKind('Dockerfile.cu130'), 'image');
    assert.equal(releaseFileKind('serve.dockerfile'), 'image');
    assert.equal(releaseFileKind('docker-compose.override.yaml'), 'image');
    assert.equal(releaseFileKind('compose.yml'), 'image');
    for (const n of ['package.json', 'values.yaml', 'requirements.in', 'Pipfile', 'README.md']) assert.equal(releaseFileKind(n), undefined, n);
    assert.deepEqual(brief(fromFile(fixture('uv.lock'), 'x/uv.lock')), [['0.5.6', true]]);
    assert.deepEqual(brief(fromFile(fixture('values.yaml'), 'values.yaml')), [['0.5.12', true]]);
    assert.deepEqual(brief(fromFile('sglang==0.5.9\n', 'requirements-gpu.txt')), [['0.5.9', true]]);
  });
});

describe('chooseRelease', () => {
  const server = fromServerInfo({ version: '0.5.6.post2' })!;
  const host = fromHostPackages({ sglang: '0.5.9' })!;
  const image = fromImageTags('image: lmsysorg/sglang:v0.5.12-cu130', 'compose.yml')[0];
  const lock = fromLockFile(fixture('uv.lock'), 'uv.lock')[0];
  const pinned = fromRequirements('sglang==0.4.6', 'requirements.txt')[0];
  const range = fromRequirements('sglang>=0.5.2', 'requirements.txt')[0];
  const pyproject = fromPyproject(fixture('pyproject-poetry.toml'))[0];
  const setting = fromSetting('0.5.0')!;

  it('follows the priority server > host > image > lock > requirements > pyproject > setting > default', () => {
    const all = [setting, pyproject, range, pinned, lock, image, host, server];
    const order: string[] = [];
    for (let list = all; list.length;) {
      const { chosen } = chooseRelease(list, KNOWN, '0.5.12');
      order.push(chosen.source);
      list = list.filter((c) => c.source !== chosen.source || c.detail !== chosen.detail);
    }
    assert.deepEqual(order, ['server', 'host', 'image', 'lock', 'requirements', 'requirements', 'pyproject', 'setting']);
    const none = chooseRelease([], KNOWN, '0.5.12');
    assert.deepEqual([none.chosen.source, none.chosen.version, none.chosen.release], ['default', '0.5.12', '0.5.12']);
    assert.deepEqual(none.others, []);
  });

  it('maps a version to the known release whose catalog applies', () => {
    const c = chooseRelease([server], KNOWN, '0.5.12').chosen;
    assert.deepEqual([c.version, c.release, c.approximate], ['0.5.6.post2', '0.5.6', true]);
    const exact = chooseRelease([host], KNOWN, '0.5.12').chosen;
    assert.deepEqual([exact.release, exact.approximate], ['0.5.9', false]);
    const old = chooseRelease([fromServerInfo({ version: '0.2.0' })], KNOWN, '0.5.12').chosen;
    assert.deepEqual([old.release, old.approximate], ['0.3.0', true], 'older than all: the oldest known');
    assert.equal(chooseRelease([server], [], '0.5.12').chosen.release, '0.5.6.post2', 'nothing known: the version itself');
  });

  it('resolves specifiers with pickRelease; one nothing known satisfies falls through', () => {
    const r = chooseRelease([range, setting], KNOWN, '0.5.12');
    assert.deepEqual([r.chosen.source, r.chosen.release], ['requirements', '0.5.12']);
    const poetry = chooseRelease([pyproject], KNOWN, '0.5.12').chosen;
    assert.equal(poetry.release, '0.5.12');
    const future = fromRequirements('sglang>=0.9')[0];
    const f = chooseRelease([future, setting], KNOWN, '0.5.12');
    assert.deepEqual([f.chosen.source, f.chosen.release], ['setting', '0.5.0']);
    assert.equal(f.others[0].release, undefined);
    const latest = chooseRelease([image, fromImageTags('image: lmsysorg/sglang:latest', 'compose.yml')[0]], KNOWN, '0.5.12');
    assert.equal(latest.conflicts.length, 0, 'latest allows the image tag');
  });

  it('lists the others and the ones that disagree, in words', () => {
    const { chosen, others, conflicts } = chooseRelease([pinned, undefined, server, range, lock], KNOWN, '0.5.12');
    assert.equal(chosen.source, 'server');
    assert.deepEqual(
      others.map((o) => o.source),
      ['lock', 'requirements', 'requirements'],
    );
    // 0.5.6 (lock) agrees with 0.5.6.post2? No: another version. >=0.5.2 allows 0.5.6.post2.
    assert.deepEqual(
      conflicts.map((c) => c.version),
      ['0.5.6', '0.4.6'],
    );
    assert.equal(
      describeConflict(chosen, conflicts[1]),
      "Flags are judged against SGLang 0.5.6 (SGLang 0.5.6.post2, reported by the server's /server_info), which differs from sglang==0.4.6 in requirements.txt line 1.",
    );
    const narrow = fromRequirements('sglang>=0.4.6,<0.5')[0];
    const c2 = chooseRelease([server, narrow], KNOWN, '0.5.12');
    assert.match(describeConflict(c2.chosen, c2.conflicts[0]), /is not allowed by sglang>=0\.4\.6,<0\.5/);
    const same = chooseRelease([fromServerInfo({ version: '0.5.6+cu130' }), lock], KNOWN, '0.5.12');
    assert.deepEqual(same.conflicts, [], 'a local label is the same release');
  });
});

describe('findWorkspaceReleaseFiles', () => {
  const tree: Record<string, string[]> = {
    '/ws': ['pyproject.toml', 'uv.lock', 'README.md', 'src', 'docker-compose.yml'],
    '/ws/deploy': ['Dockerfile', 'Dockerfile.cu130', 'requirements.txt', 'requirements-dev.txt', 'compose.override.yaml', 'run.sh', 'notes.txt'],
    '/ws/deploy/gpu': ['launch.sh', 'Pipfile.lock'],
    '/': ['requirements.txt'],
  };
  const listDir = (dir: string): string[] => {
    if (dir === '/ws/broken') throw new Error('EACCES');
    return tree[dir] ?? [];
  };

  it('looks in the start directory and its parents up to the workspace root, nearest first', async () => {
    const files = await findWorkspaceReleaseFiles({ listDir }, '/ws/deploy/gpu', { root: '/ws' });
    assert.deepEqual(
      files.map((f) => [f.path, f.kind, f.level]),
      [
        ['/ws/deploy/gpu/Pipfile.lock', 'lock', 0],
        ['/ws/deploy/requirements-dev.txt', 'requirements', 1],
        ['/ws/deploy/requirements.txt', 'requirements', 1],
        ['/ws/deploy/Dockerfile', 'image', 1],
        ['/ws/deploy/Dockerfile.cu130', 'image', 1],
        ['/ws/deploy/compose.override.yaml', 'image', 1],
        ['/ws/uv.lock', 'lock', 2],
        ['/ws/pyproject.toml', 'pyproject', 2],
        ['/ws/docker-compose.yml', 'image', 2],
      ],
    );
  });

  it('is bounded: levels, files, an unreadable directory, a start outside the root', async () => {
    assert.equal((await findWorkspaceReleaseFiles({ listDir }, '/ws/deploy/gpu', { root: '/ws', maxFiles: 3 })).length, 3);
    assert.deepEqual(
      (await findWorkspaceReleaseFiles({ listDir }, '/ws/deploy/gpu', { maxLevels: 1 })).map((f) => f.path),
      ['/ws/deploy/gpu/Pipfile.lock'],
    );
    assert.ok(
      (await findWorkspaceReleaseFiles({ listDir }, '/ws/deploy/gpu')).some((f) => f.path === '/requirements.txt'),
      'no root: up to maxLevels',
    );
    assert.deepEqual(await findWorkspaceReleaseFiles({ listDir }, '/ws/broken', { root: '/ws/broken' }), []);
    assert.deepEqual(
      (await findWorkspaceReleaseFiles({ listDir }, '/ws/deploy', { root: '/elsewhere' })).map((f) => f.level),
      [0, 0, 0, 0, 0],
      'outside the root: only the start directory',
    );
    let calls = 0;
    const deep = (): Promise<string[]> => {
      calls++;
      return Promise.resolve(Array.from({ length: 100_000 }, (_, i) => `f${i}`));
    };
    await findWorkspaceReleaseFiles({ listDir: deep }, '/a/b/c/d/e/f/g/h/i/j/k', {});
    assert.equal(calls, 6, 'six levels by default');
  });

  it('handles Windows paths', async () => {
    const win: Record<string, string[]> = { 'C:\\ws\\app': ['requirements.txt'], 'C:\\ws': ['uv.lock'], 'C:\\': ['pyproject.toml'] };
    const files = await findWorkspaceReleaseFiles({ listDir: (d) => win[d] }, 'C:\\ws\\app', { root: 'C:\\ws' });
    assert.deepEqual(
      files.map((f) => f.path),
      ['C:\\ws\\app\\requirements.txt', 'C:\\ws\\uv.lock'],
    );
  });

  it('detectWorkspaceReleases reads them, skipping what cannot be read', async () => {
    const files: Record<string, string> = {
      '/ws/deploy/requirements.txt': 'sglang==0.4.6\n',
      '/ws/uv.lock': fixture('uv.lock'),
    };
    const io = {
      listDir: (d: string) => ({ '/ws/deploy': ['requirements.txt', 'Dockerfile'], '/ws': ['uv.lock'] })[d],
      readFile: (p: string) => {
        if (p.endsWith('Dockerfile')) throw new Error('EISDIR');
        return files[p];
      },
    };
    const cs = await detectWorkspaceReleases(io, '/ws/deploy', { root: '/ws' });
    assert.deepEqual(
      cs.map((c) => [c.source, c.version]),
      [
        ['requirements', '0.4.6'],
        ['lock', '0.5.6'],
      ],
    );
    assert.equal(chooseRelease(cs, KNOWN, '0.5.12').chosen.source, 'lock');
  });
});

describe('release detection on hostile input', () => {
  const junk = (n: number, seed = 7): string => {
    let x = seed;
    let s = '';
    for (let i = 0; i < n; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      s += String.fromCharCode(x % 256);
    }
    return s;
  };

  it('a 5 MB requirements file returns quickly and finds the pin', () => {
    const filler = Array.from({ length: 120_000 }, (_, i) => `package-${i}==1.${i}.0 --hash=sha256:${'f'.repeat(8)}`).join('\n');
    const text = `${filler}\nsglang==0.5.6\n${filler}`;
    assert.ok(text.length > 5_000_000);
    const t0 = performance.now();
    const cs = fromRequirements(text);
    const ms = performance.now() - t0;
    assert.deepEqual(brief(cs), [['0.5.6', true]]);
    assert.equal(cs[0].range!.line, 120_000);
    assert.ok(ms < 1500, `took ${ms} ms`);
  });

  it('pathological lines (whitespace runs, endless names, repeated /sglang) stay fast', () => {
    const cases = [
      'sglang' + ' '.repeat(8000) + 'x',
      'sglang (' + ' '.repeat(8000),
      ('sglang ' + ' '.repeat(100) + '\\').repeat(60),
      'image: ' + 'a/'.repeat(4000) + 'sglang',
      'image: ' + '/sglang'.repeat(1100),
      ('a-'.repeat(150) + 'a/sglang ').repeat(25),
      'x'.repeat(5_000_000) + 'sglang',
    ];
    const t0 = performance.now();
    for (const base of cases) {
      const text = Array.from({ length: Math.max(1, Math.floor(2_000_000 / base.length)) }, () => base).join('\n');
      for (const name of ['requirements.txt', 'docker-compose.yml', 'uv.lock', 'Pipfile.lock', 'pyproject.toml', 'run.sh']) fromFile(text, name);
      fromLockFile(text, 'requirements.lock');
    }
    const ms = performance.now() - t0;
    assert.ok(ms < 8000, `took ${ms} ms`);
  });

  it('binary junk, huge strings and odd values never throw', () => {
    const blobs = [
      junk(1_000_000),
      junk(100_000, 3) + '\nsglang==0.5.6\n' + junk(1000, 5),
      '\u0000'.repeat(100_000),
      '\uFEFFsglang==0.5.6',
      '['.repeat(100_000) + 'sglang',
      '{"default":' + '['.repeat(50_000),
    ];
    for (const b of blobs) {
      for (const name of ['requirements.txt', 'pyproject.toml', 'uv.lock', 'poetry.lock', 'Pipfile.lock', 'Dockerfile', 'values.yaml', 'whatever']) {
        assert.doesNotThrow(() => fromFile(b, name), name);
      }
      assert.doesNotThrow(() => fromServerInfo(b));
    }
    assert.deepEqual(brief(fromRequirements(junk(100_000, 3) + '\nsglang==0.5.6\n')), [['0.5.6', true]]);
    assert.deepEqual(brief(fromRequirements('\uFEFFsglang==0.5.6')), [['0.5.6', true]], 'a byte order mark is whitespace');
    assert.deepEqual(fromRequirements(42 as unknown as string), []);
    assert.deepEqual(fromImageTags(undefined as unknown as string, 'x'), []);
    assert.equal(parseVersion('9'.repeat(1_000_000)), undefined);
    assert.equal(satisfies('0.5.6', '>=' + '0.'.repeat(100_000) + '1'), false);
    assert.equal(pickRelease('>=0.1', [null, 5, '0.5.6'] as unknown as string[]), '0.5.6');
    assert.doesNotThrow(() =>
      chooseRelease(
        [{ version: 5, source: 'server' } as unknown as ReleaseCandidate, { version: '>=x', exact: false, source: 'lock', detail: '' }],
        KNOWN,
        '0.5.12',
      ),
    );
    assert.equal(fromHostPackages({ ['__proto__']: '0.5.6', sglang: '0.5.9' })?.version, '0.5.9');
  });
});

describe('release toml reader', () => {
  it('reads the tables, arrays and strings lock files and pyproject use', () => {
    const doc = parseToml(
      [
        '# comment',
        'a = "x\\ty" # trailing',
        "b = 'C:\\path'",
        'c = """',
        'two\\',
        '   lines"""""',
        "d = '''raw\\n'''",
        'e = [1, 2.5, true, 1979-05-27T07:32:00Z, [ "n" ], ]',
        'f = { g = { h = "i" }, "quoted key" = 1 }',
        'j.k = "dotted"',
        '[t."x.y"]',
        'v = 1',
        '[[p]]',
        'name = "a"',
        '[[p]]',
        'name = "b"',
        '[p.sub]',
        'z = "last"',
      ].join('\n'),
    );
    const str = (...p: string[]): unknown => {
      const n = tomlGet(doc, ...p);
      return n?.kind === 'string' ? n.value : n?.kind;
    };
    assert.equal(str('a'), 'x\ty');
    assert.equal(str('b'), 'C:\\path');
    assert.equal(str('c'), 'twolines""');
    assert.equal(str('d'), 'raw\\n');
    assert.equal(str('f', 'g', 'h'), 'i');
    assert.equal(str('j', 'k'), 'dotted');
    assert.equal(tomlGet(doc, 't', 'x.y', 'v')?.kind, 'scalar');
    const p = tomlGet(doc, 'p');
    assert.ok(p?.kind === 'array' && p.items.length === 2);
    assert.equal(str('e'), 'array');
    assert.equal(tomlGet(p.items[1], 'sub', 'z')?.kind, 'string');
    assert.throws(() => parseToml('a = "unterminated'), TomlError);
    assert.throws(() => parseToml('a = ' + '['.repeat(1000)), TomlError);
    assert.throws(() => parseToml('a = 1 b = 2'), TomlError);
  });
});
