import type { FetchWorkerErrorCode } from './fetch.messages';

/** How one worker error code is answered: HTTP status and problem title (Fetch spec §7). */
export interface WorkerProblemKind {
  status: number;
  title: string;
}

/**
 * The one mapping from worker error codes to HTTP status and title: the worker answers with it, and
 * the OpenAPI document lists the codes from it. Exhaustive: a code added to
 * `FETCH_WORKER_ERROR_CODES` without a case here fails to compile.
 */
export function workerProblemKind(code: FetchWorkerErrorCode): WorkerProblemKind {
  switch (code) {
    case 'REQS002':
      return { status: 400, title: 'Domain needs JavaScript rendering or premium proxies' };
    case 'REQS004':
      return { status: 400, title: 'Invalid parameters or URL' };
    case 'REQS006':
      return { status: 400, title: 'CAPTCHA solver key invalid' };
    case 'RESP001':
      return { status: 422, title: 'Content could not be obtained' };
    case 'RESP003':
      return { status: 502, title: 'The URL could not be automatically parsed' };
    case 'RESP002':
      return { status: 404, title: 'Target page not found' };
    case 'RESP004':
      return { status: 400, title: 'Invalid css_extractor' };
    case 'RESP005':
      return { status: 413, title: 'Response too large' };
    case 'RESP006':
      return { status: 424, title: 'CAPTCHA solver failed' };
    case 'RESP007':
      return { status: 404, title: 'Target domain could not be resolved' };
    case 'RESP008':
      // The spec's 400 "target returned an error on its configuration or certificate" (no code shown).
      return { status: 400, title: 'Target TLS certificate or configuration error' };
    case 'CTX0001':
      return { status: 500, title: 'Request cancelled by the client' };
    case 'RESP009':
      return { status: 503, title: 'All capacity busy' };
    case 'CTX0002':
      return { status: 504, title: 'Operation exceeded the maximum allowed time' };
    case 'ERR0001':
      return { status: 500, title: 'Unknown internal error' };
    default:
      return unreachable(code);
  }
}

function unreachable(code: never): never {
  throw new Error(`No problem mapping for worker error code ${String(code)}`);
}
