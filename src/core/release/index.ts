/**
 * Which SGLang release the user runs (so flags are judged against that release's catalog):
 * PEP 440 versions and specifiers (version.ts) and the sources that name a release (detect.ts).
 */
export * from './version';
export * from './detect';
