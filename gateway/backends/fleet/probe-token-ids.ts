import { isRecord } from '../../../core/json/is-record.js';
import type { BackendClient } from '../vllm.js';
import type { BackendFlavour } from './fleet-types.js';
import { answerMessage, probeRequest } from './probe-request.js';

/** Whether a replica returns token ids, and why not in words (`ReplicaCapabilities.returnsTokenIds`, `tokenIdsNote`). */
export interface TokenIdsProbe {
  returnsTokenIds: boolean | null;
  tokenIdsNote: string | null;
}

/**
 * A vLLM at 0.10.2 or later (by its `/version`) returns token ids when asked: nothing is generated. Any other replica
 * is asked for ONE token with `return_token_ids: true` on `/v1/completions`, where vLLM (0.10.2 and later,
 * PR #22587) and SGLang (PR #30917) both take it, streamed or not; a server older than that ignores the field and
 * answers without `choices[0].token_ids`. Old SGLang's native `/generate` still returns `output_ids` on every answer,
 * so token-faithful mode records token ids there: the note says so.
 *
 * @example
 * const probe = await probeTokenIds(client, { flavour: 'vllm', version: '0.11.0', model: 'Qwen/Qwen3-8B', signal });
 * // { returnsTokenIds: true, tokenIdsNote: null }
 */
export async function probeTokenIds(
  client: BackendClient,
  input: { flavour: BackendFlavour; version: string | null; model: string | null; signal: AbortSignal },
): Promise<TokenIdsProbe> {
  // vLLM says its version, and every vLLM since 0.10.2 returns token ids when asked: no token need be generated
  if (input.flavour === 'vllm' && isVllmWithTokenIds(input.version)) return { returnsTokenIds: true, tokenIdsNote: null };
  const body = {
    ...(input.model === null ? {} : { model: input.model }),
    prompt: 'Hi',
    max_tokens: 1,
    temperature: 0,
    stream: false,
    return_token_ids: true,
  };
  const answer = await probeRequest(client, '/v1/completions', input.signal, body);
  if (!answer.ok) return { returnsTokenIds: null, tokenIdsNote: `the token-id probe failed: ${answer.error}` };
  if (answer.status < 200 || answer.status >= 300) {
    return {
      returnsTokenIds: null,
      tokenIdsNote: `the token-id probe (one token on /v1/completions) was answered ${answer.status}: ${answerMessage(answer)}`,
    };
  }
  if (hasTokenIds(answer.json)) return { returnsTokenIds: true, tokenIdsNote: null };
  // an answer that is no completion at all (not JSON, no choices) says nothing about token ids
  if (!isRecord(answer.json) || !Array.isArray(answer.json.choices) || answer.json.choices.length === 0) {
    return { returnsTokenIds: null, tokenIdsNote: 'the token-id probe (one token on /v1/completions) was answered with no completion: unknown' };
  }
  return { returnsTokenIds: false, tokenIdsNote: missingTokenIdsNote(input.flavour, input.version) };
}

/** `0.10.2`, `0.11.0rc1`, `1.0.0+cu128`: a version at or past 0.10.2 (PR #22587); anything unreadable is asked. */
function isVllmWithTokenIds(version: string | null): boolean {
  const match = version === null ? null : /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (match === null) return false;
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return major > 0 || minor > 10 || (minor === 10 && patch >= 2);
}

function hasTokenIds(json: unknown): boolean {
  if (!isRecord(json) || !Array.isArray(json.choices)) return false;
  const choice: unknown = json.choices[0];
  return isRecord(choice) && Array.isArray(choice.token_ids) && choice.token_ids.every((id) => Number.isInteger(id));
}

function missingTokenIdsNote(flavour: BackendFlavour, version: string | null): string {
  const named = version === null ? '' : ` ${version}`;
  if (flavour === 'sglang') {
    return (
      `SGLang${named} answered /v1/completions without token ids (return_token_ids needs SGLang with PR #30917, July 2026): ` +
      'plain calls through it record token_source: none. Its native /generate always returns output_ids, so ' +
      'token-faithful mode (--token-faithful) still records token ids; or upgrade SGLang'
    );
  }
  return (
    `the server${named} answered /v1/completions without token ids (return_token_ids needs vLLM 0.10.2 or later): ` +
    'calls through it record token_source: none. Upgrade vLLM, or point tokentap at a server that returns token ids'
  );
}
