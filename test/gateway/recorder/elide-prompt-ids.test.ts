import { describe, expect, it } from 'vitest';
import { ELIDED_PROMPT_IDS, elidePromptIdsFromBody, elidePromptIdsFromStream } from '../../../gateway/recorder/elide-prompt-ids.js';

describe('prompt ids are elided from stored bodies and streams only when the call row holds them', () => {
  it('elides token ids, the Int32 edge included, top-level (chat) and per choice (completions)', () => {
    expect(elidePromptIdsFromBody({ prompt_token_ids: [0, 2147483647], choices: [{ prompt_token_ids: [1] }] })).toEqual({
      prompt_token_ids: ELIDED_PROMPT_IDS,
      choices: [{ prompt_token_ids: ELIDED_PROMPT_IDS }],
    });
    expect(elidePromptIdsFromStream('data: {"prompt_token_ids":[1, 2147483647]}\n\n')).toBe(
      `data: {"prompt_token_ids":${JSON.stringify(ELIDED_PROMPT_IDS)}}\n\n`,
    );
  });

  it('keeps a list holding a number that is no token id: the row does not hold it (flag invalid_token_ids)', () => {
    for (const bad of [-1, 0.5, 2 ** 31, 1e20]) {
      const body = { prompt_token_ids: [7, bad], choices: [{ prompt_token_ids: [bad] }] };
      expect(elidePromptIdsFromBody(body)).toEqual(body);
      const stream = `data: {"prompt_token_ids":[7,${JSON.stringify(bad)}]}\n\n`;
      expect(elidePromptIdsFromStream(stream)).toBe(stream);
    }
  });
});
