import { describe, expect, it } from 'vitest';
import { createReasoningDeltaReader } from '../../../model-format/backend-fields/create-reasoning-delta-reader.js';

describe('createReasoningDeltaReader', () => {
  it('counts text sent under both names once, keeping to the first name seen', () => {
    const reader = createReasoningDeltaReader();
    const deltas = [
      { role: 'assistant' },
      { reasoning: 'Two', reasoning_content: 'Two' },
      { reasoning: ' calls.', reasoning_content: ' calls.' },
      { content: 'A.' },
    ];
    expect(deltas.map((delta) => reader.read(delta))).toEqual([null, 'Two', ' calls.', null]);
    expect(reader.field).toBe('reasoning');
  });

  it('reads an older server that says only `reasoning_content`, and from then on only that name', () => {
    const reader = createReasoningDeltaReader();
    expect(reader.field).toBeNull();
    expect(reader.read({ reasoning_content: 'Okay' })).toBe('Okay');
    expect(reader.read({ reasoning: 'other', reasoning_content: ', so' })).toBe(', so');
    expect(reader.read({ reasoning: 'other' })).toBeNull();
    expect(reader.field).toBe('reasoning_content');
  });

  it('takes the name from the first delta holding a string there, an empty one included', () => {
    const reader = createReasoningDeltaReader();
    expect(reader.read({ reasoning: null, reasoning_content: '' })).toBe('');
    expect(reader.field).toBe('reasoning_content');
  });
});
