export * from './report';
export * from './processes';
export * from './interpreters';
export { PROBE_SCRIPT, PROBE_MARKER, parseProbeOutput } from './probeScript';
export type { PythonProbe, PyPackage, PyTorch, PyLibrary, PackageKey } from './probeScript';
