import { strict as assert } from 'node:assert';
import { parsePyKwargs, parsePyRepr, parseServerArgsLine } from '../../src/core/diagnose';

describe('diagnose: Python repr reader', () => {
  it('reads scalars: strings both quotes, escapes, None/True/False, ints, floats, exponents, inf/nan', () => {
    assert.equal(parsePyRepr(`'it\\'s'`).value, "it's");
    assert.equal(parsePyRepr(`"it's \\"q\\""`).value, 'it\'s "q"');
    assert.equal(parsePyRepr(`'a\\nb\\t\\x41\\u00e9'`).value, 'a\nb\tAé');
    assert.equal(parsePyRepr('None').value, null);
    assert.equal(parsePyRepr('True').value, true);
    assert.equal(parsePyRepr('False').value, false);
    assert.equal(parsePyRepr('42').value, 42);
    assert.equal(parsePyRepr('-0.874').value, -0.874);
    assert.equal(parsePyRepr('1e-05').value, 1e-5);
    assert.equal(parsePyRepr('1_000').value, 1000);
    assert.equal(parsePyRepr('inf').value, Infinity);
    assert.equal(parsePyRepr('-inf').value, -Infinity);
    assert.ok(Number.isNaN(parsePyRepr('nan').value));
    assert.equal(parsePyRepr("b'\\x00raw'").value, '\\x00raw');
    assert.equal(parsePyRepr('torch.bfloat16').value, 'torch.bfloat16');
    assert.equal(parsePyRepr('1.5GiB').value, '1.5GiB');
  });

  it('reads containers: lists, tuples, sets, nested dicts, calls, enum reprs', () => {
    assert.deepEqual(parsePyRepr("[1, 'two', (3, 4), [], ()]").value, [1, 'two', [3, 4], [], []]);
    assert.deepEqual(parsePyRepr("{'a': {'b': [1, {'c': None}]}, 2: 'x', None: True}").value, { a: { b: [1, { c: null }] }, 2: 'x', None: true });
    assert.deepEqual(parsePyRepr("{'x', 'y'}").value, ['x', 'y']);
    assert.deepEqual(parsePyRepr('{}').value, {});
    assert.deepEqual(parsePyRepr("PosixPath('/m')").value, { $call: 'PosixPath', $args: ['/m'] });
    assert.deepEqual(parsePyRepr("<ConfigFormat.AUTO: 'auto'>").value, 'auto');
    assert.deepEqual(parsePyRepr('<LoadFormat.AUTO: 1>').value, 1);
    assert.equal(parsePyRepr('<function f at 0x7f00>').value, '<function f at 0x7f00>');
    assert.deepEqual(parsePyRepr('{"level":3,"use_inductor":true,"x":null,"m":[2,1]}').value, { level: 3, use_inductor: true, x: null, m: [2, 1] });
  });

  it('keeps __proto__ and constructor as plain keys', () => {
    const v = parsePyRepr("{'__proto__': {'polluted': True}, 'constructor': 1}").value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ['__proto__', 'constructor']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const a = parseServerArgsLine("server_args=ServerArgs(__proto__='x', constructor=None)").args;
    assert.equal(Object.getOwnPropertyDescriptor(a, '__proto__')?.value, 'x');
  });

  it('reads a server_args line with quotes inside strings, nested dicts, lists and odd values', () => {
    const line =
      `[2026-01-01 00:00:00] INFO engine.py:177: server_args=ServerArgs(model_path='/m/it\\'s "here"', chat_template="{% if x == 'y' %}a, b{% endif %}", ` +
      `json_model_override_args='{"a": [1, 2]}', mm_process_config={'image': {'max': 4, 'sizes': [(224, 224), (448, 448)]}}, ` +
      `lora_paths=None, cuda_graph_bs=[1, 2, 4], tp_size=8, mem_fraction_static=0.874, enable_x=True, kv_cache_dtype='fp8_e4m3', weight=1e-05)`;
    const r = parseServerArgsLine(line);
    assert.equal(r.found, true);
    assert.equal(r.truncated, false);
    assert.equal(r.args.model_path, '/m/it\'s "here"');
    assert.equal(r.args.chat_template, "{% if x == 'y' %}a, b{% endif %}");
    assert.equal(r.args.json_model_override_args, '{"a": [1, 2]}');
    assert.deepEqual(r.args.mm_process_config, {
      image: {
        max: 4,
        sizes: [
          [224, 224],
          [448, 448],
        ],
      },
    });
    assert.equal(r.args.lora_paths, null);
    assert.deepEqual(r.args.cuda_graph_bs, [1, 2, 4]);
    assert.equal(r.args.tp_size, 8);
    assert.equal(r.args.mem_fraction_static, 0.874);
    assert.equal(r.args.enable_x, true);
    assert.equal(r.args.weight, 1e-5);
  });

  it('returns what it read from a truncated line and says so, without throwing', () => {
    const full = "server_args=ServerArgs(model_path='/m', tp_size=4, attention_backend='fa3', chat_template='abc, def', extra={'a': [1, 2, 3]})";
    for (let cut = 0; cut < full.length; cut++) {
      const r = parseServerArgsLine(full.slice(0, cut));
      if (cut >= 'server_args=ServerArgs('.length) {
        assert.equal(r.found, true);
        assert.equal(r.truncated, true, `cut ${cut}`);
      }
    }
    const r = parseServerArgsLine(full.slice(0, full.indexOf('fa3') + 2));
    assert.equal(r.args.model_path, '/m');
    assert.equal(r.args.tp_size, 4);
    assert.equal(r.args.attention_backend, 'fa'); // the cut string, marked truncated
    const w = parseServerArgsLine(`server_args=ServerArgs(model_path='/m', tp_size=4, chat_templ`);
    assert.equal(w.args.tp_size, 4);
    assert.equal(w.truncated, true);
  });

  it("reads vLLM's `with config:` tail of bare words to the end of the line, not as a cut", () => {
    const r = parsePyKwargs(
      ' model=\'m\', dtype=torch.bfloat16, quantization=compressed-tensors, kv_cache_dtype=auto,  device_config=cuda, seed=None, compilation_config={"level":3}',
      0,
    );
    assert.equal(r.truncated, false);
    assert.equal(r.args.quantization, 'compressed-tensors');
    assert.equal(r.args.dtype, 'torch.bfloat16');
    assert.equal(r.args.kv_cache_dtype, 'auto');
    assert.deepEqual(r.args.compilation_config, { level: 3 });
  });

  it('survives nasty input: deep nesting, unbalanced brackets, stray delimiters, huge numbers', () => {
    const deep = `server_args=ServerArgs(x=${'['.repeat(5000)}1${']'.repeat(5000)}, y=2)`;
    const r = parseServerArgsLine(deep);
    assert.equal(r.args.y, 2);
    for (const s of [
      'server_args=ServerArgs(',
      'server_args=ServerArgs(=)',
      'server_args=ServerArgs(,,,)',
      'server_args=ServerArgs(a=))))',
      "server_args=ServerArgs(a='\\",
      'server_args=ServerArgs(a={:}, b=[,], c=(,), d=<, e=>)',
      `server_args=ServerArgs(a=${'9'.repeat(500)})`,
      'server_args=ServerArgs(a=1 2 3, b=2)',
      'server_args=ServerArgs(a=-, b=+., c=...)',
      "server_args=ServerArgs(a=''''''', b='''x''')",
    ]) {
      const p = parseServerArgsLine(s);
      assert.equal(p.found, true, s);
    }
    assert.equal(parseServerArgsLine('server_args=ServerArgs(a=1 2 3, b=2)').args.b, 2);
    assert.equal(parseServerArgsLine('no args here').found, false);
  });
});
