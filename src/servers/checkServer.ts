import { fetchServerStatus } from '../core/probe/server-api';
import type { ServerChecker } from './healthMonitor';

/** The production checker: /health, /health_generate, /v1/models and /server_info. */
export const checkServer: ServerChecker = (target, { checkGenerate, signal }) => fetchServerStatus(target, { signal, checkGenerate });
