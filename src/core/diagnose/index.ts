/**
 * Evidence for the diagnosis engine: one typed model of what is known about a deployment
 * (evidence.ts) and the readers that fill it from launch files, SGLang and vLLM logs,
 * /server_info, check_env / collect_env output, environment discovery and probes.
 * No vscode import.
 */
export * from './evidence';
export { gpuFamilyOf, computeCapabilityOfName, isRocmName, ccString } from './gpuFamily';
export { parsePyRepr, parsePyKwargs, parseServerArgsLine, type PyReprOptions, type PyReprResult, type KwargsResult } from './pyrepr';
export { hintsOfModelPath, traitsOfArchitecture, normalizeQuantization, kvDtypeOfTorch, type ModelHints } from './modelHints';
export { forEachLine, forEachLineSync, lineStream, DEFAULT_MAX_LINE_CHARS, type LineSource } from './lines';
export { LogReaderBase, MAX_SCAN_CHARS, MAX_REPR_CHARS, type LogReadOptions } from './logScan';
export { fromLaunch, hintsOfFile, type LaunchEvidenceOptions } from './launch';
export { fromSglangLog, SglangLogReader, backendFieldOf } from './sglangLog';
export { fromVllmLog, VllmLogReader } from './vllmLog';
export { fromServerInfo, toFlagValue, type ServerInfoOptions } from './serverInfo';
export { fromCheckEnv, fromCollectEnv } from './envText';
export { fromDiscovery, type DiscoveryOptions } from './discovery';
export { fromProbe, type ProbeInput, type ProbeEvidenceOptions } from './probe';
export { deriveFromArgs, gpuCountOfArgs } from './derive';
export { fromModelConfig, quantizationOfConfig } from './modelConfig';
