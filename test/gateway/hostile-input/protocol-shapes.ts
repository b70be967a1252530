import { expect } from 'vitest';

/** Which error shape a route answers in. */
export type Protocol = 'openai' | 'anthropic' | 'admin';

/**
 * Asserts an error body is in the protocol's own shape: OpenAI `{"error":{"message","type","param","code"}}`,
 * Anthropic `{"type":"error","error":{"type","message"}}`, the rollout API `{"error":{"code","message"}}`.
 */
export function expectErrorShape(protocol: Protocol, text: string, context = ''): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`not JSON ${context}: ${text.slice(0, 200)}`);
  }
  if (protocol === 'openai') {
    expect(body, context).toEqual({
      error: {
        message: expect.any(String),
        type: expect.any(String),
        param: expect.toSatisfy((value) => value === null || typeof value === 'string'),
        code: expect.anything(),
      },
    });
  } else if (protocol === 'anthropic') {
    expect(body, context).toEqual({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
  } else {
    expect(body, context).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
  }
  return body as Record<string, unknown>;
}
