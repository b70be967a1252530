import { ALTERNATIVE_TOKENS } from './fast-canned-replies.js';
import { unitFromNumbers } from './seeded-random.js';

/** Where a completion's logprobs come from: the run's seed and a hash of the prompt. */
export interface LogprobSeed {
  seed: number;
  promptHash: number;
}

/**
 * The logprob of the sampled token at `position`: negative, never a whole number (so it serializes as a
 * float, like Python's), mostly close to 0 as a confident model's are. Fixed by seed, prompt, position, id.
 *
 * @example
 * sampledLogprobs({ seed: 0, promptHash: 42 }, [9707, 151645]); // [-0.0123..., -0.4567...]
 */
export function sampledLogprobs(source: LogprobSeed, tokenIds: readonly number[]): number[] {
  const logprobs = new Array<number>(tokenIds.length);
  for (let position = 0; position < tokenIds.length; position++) {
    const unit = unitFromNumbers(source.seed, source.promptHash, position, tokenIds[position] ?? 0);
    logprobs[position] = -(unit * unit * unit * 6 + 0.000001);
  }
  return logprobs;
}

/** One ranked alternative: its id, text and (lower than the sampled one) logprob. */
export interface AlternativeToken {
  id: number;
  text: string;
  logprob: number;
}

/**
 * `count` other tokens for `top_logprobs` at `position`, drawn from common tokens, each less likely than the
 * sampled one and in decreasing order. vLLM lists the sampled token first, then these.
 *
 * @example
 * alternativeTokens({ seed: 0, promptHash: 42 }, 3, 9707, -0.01, 2); // [{ id: 11, text: ',', logprob: -1.2 }, ...]
 */
export function alternativeTokens(
  source: LogprobSeed,
  position: number,
  sampledId: number,
  sampledLogprob: number,
  count: number,
): AlternativeToken[] {
  const alternatives: AlternativeToken[] = [];
  const offset = Math.floor(unitFromNumbers(source.seed, source.promptHash, position, -1) * ALTERNATIVE_TOKENS.length);
  let logprob = sampledLogprob;
  for (let step = 0; alternatives.length < count && step < ALTERNATIVE_TOKENS.length; step++) {
    const [id, text] = ALTERNATIVE_TOKENS[(offset + step) % ALTERNATIVE_TOKENS.length] ?? [0, ''];
    if (id === sampledId) continue;
    logprob -= 0.25 + 2 * unitFromNumbers(source.seed, source.promptHash, position, id);
    alternatives.push({ id, text, logprob });
  }
  return alternatives;
}
