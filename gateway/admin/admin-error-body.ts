import type { TokentapError } from '../../core/errors/tokentap-error.js';

/** The one error shape of the rollout API (docs/errors.md). */
export interface AdminErrorBody {
  error: { code: string; message: string };
}

/** @example toAdminErrorBody(new TokentapError('TT_SESSION_NOT_FOUND')) // { error: { code: 'TT_SESSION_NOT_FOUND', message: 'Session not found' } } */
export function toAdminErrorBody(failure: TokentapError): AdminErrorBody {
  return { error: { code: failure.code, message: failure.message } };
}
