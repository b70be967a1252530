/** Route patterns (without the `/s/:sessionId` prefix) of each front door, as the `front_door` label names them. */
const FRONT_DOORS: ReadonlyMap<string, string> = new Map([
  ['/v1/chat/completions', 'openai-chat'],
  ['/v1/completions', 'openai-completions'],
  ['/v1/responses', 'openai-responses'],
  ['/v1/models', 'openai-models'],
  ['/v1/messages', 'anthropic-messages'],
  ['/v1/messages/count_tokens', 'anthropic-count-tokens'],
  ['/healthz', 'ops'],
  ['/metrics', 'ops'],
]);

/**
 * The `front_door` label of a request from its route pattern (never its URL: session ids would make one time
 * series per session). `admin` for the rollout API, `none` for unknown routes, `other` for anything else.
 *
 * @example frontDoorOfRoute('/s/:sessionId/v1/chat/completions') // 'openai-chat'
 */
export function frontDoorOfRoute(route: string | undefined): string {
  if (route === undefined) return 'none';
  if (route.startsWith('/tokentap/')) return 'admin';
  const path = route.replace(/^\/s\/:sessionId/, '').replace(/\/+$/, '');
  return FRONT_DOORS.get(path) ?? 'other';
}
