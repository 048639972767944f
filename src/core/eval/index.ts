/** The accuracy smoke test: seeded problem sets, lenient answer reading, statistics, baselines. */
export * from './baseline';
export * from './parse';
export * from './problems';
export * from './report';
export * from './run';
export * from './stats';
