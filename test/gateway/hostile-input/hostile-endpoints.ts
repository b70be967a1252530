import type { Protocol } from './protocol-shapes.js';

/** A route that takes a JSON body, the shape its errors come in, and a valid body for it. */
export interface BodyEndpoint {
  name: string;
  path: string;
  protocol: Protocol;
  valid: Record<string, unknown>;
}

export const MODEL = 'Qwen/Qwen3-8B';
const messages = [{ role: 'user', content: 'hi' }];

/**
 * Every route that reads a JSON body: the four front doors and count_tokens, on a session path, and the rollout
 * API's writes. `SESSION` in a path is replaced by a session made for the test.
 */
export const BODY_ENDPOINTS: BodyEndpoint[] = [
  { name: 'chat completions', path: '/s/hostile/v1/chat/completions', protocol: 'openai', valid: { model: MODEL, messages, max_tokens: 4 } },
  { name: 'completions', path: '/s/hostile/v1/completions', protocol: 'openai', valid: { model: MODEL, prompt: 'hi', max_tokens: 4 } },
  { name: 'responses', path: '/s/hostile/v1/responses', protocol: 'openai', valid: { model: MODEL, input: 'hi', max_output_tokens: 4 } },
  { name: 'messages', path: '/s/hostile/v1/messages', protocol: 'anthropic', valid: { model: MODEL, max_tokens: 4, messages } },
  { name: 'count_tokens', path: '/s/hostile/v1/messages/count_tokens', protocol: 'anthropic', valid: { model: MODEL, messages } },
  { name: 'admin: create session', path: '/tokentap/v1/sessions', protocol: 'admin', valid: { task: { id: 1 } } },
  { name: 'admin: reward', path: '/tokentap/v1/sessions/SESSION/reward', protocol: 'admin', valid: { value: 1 } },
  { name: 'admin: end', path: '/tokentap/v1/sessions/SESSION/end', protocol: 'admin', valid: { status: 'completed' } },
  { name: 'admin: declare group', path: '/tokentap/v1/groups', protocol: 'admin', valid: { id: 'g-hostile', expectedSize: 2 } },
  { name: 'admin: policy version', path: '/tokentap/v1/policy-version', protocol: 'admin', valid: { version: 'step-1' } },
  { name: 'admin: pause', path: '/tokentap/v1/pause', protocol: 'admin', valid: { mode: 'reject' } },
];

/** The method each body route takes. */
export function methodOf(endpoint: BodyEndpoint): string {
  return endpoint.path.endsWith('/policy-version') ? 'PUT' : 'POST';
}
