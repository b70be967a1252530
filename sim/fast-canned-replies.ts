/**
 * Pre-tokenized replies for fast mode, so a benchmark run never loads the tokenizer. The ids and texts are
 * the Qwen3 tokenizer's (test/sim/fast-mode.test.ts checks them against it).
 */
export interface CannedReply {
  tokenIds: readonly number[];
  /** the text of each id; joined they give the reply */
  tokenTexts: readonly string[];
}

export const CANNED_REPLIES: readonly CannedReply[] = [
  {
    tokenIds: [
      39814, 13, 5692, 374, 264, 2805, 4226, 311, 697, 3405, 11, 8604, 9814, 773, 279, 28431, 10953, 279, 28795, 323,
      537, 279, 1614, 13,
    ],
    tokenTexts: [
      'Sure', '.', ' Here', ' is', ' a', ' short', ' answer', ' to', ' your', ' question', ',', ' kept', ' brief',
      ' so', ' the', ' benchmark', ' measures', ' the', ' gateway', ' and', ' not', ' the', ' model', '.',
    ],
  },
  {
    tokenIds: [
      40, 10067, 279, 1681, 323, 4297, 5868, 6915, 13, 576, 1790, 3019, 374, 311, 1598, 279, 7032, 1549, 323, 9429,
      279, 3059, 13,
    ],
    tokenTexts: [
      'I', ' checked', ' the', ' request', ' and', ' everything', ' looks', ' fine', '.', ' The', ' next', ' step',
      ' is', ' to', ' run', ' the', ' tests', ' again', ' and', ' compare', ' the', ' results', '.',
    ],
  },
  {
    tokenIds: [785, 4226, 374, 220, 19, 17, 13, 6771, 752, 1414, 421, 498, 1366, 264, 5021, 16148, 315, 1246, 358, 2684, 1052, 13],
    tokenTexts: [
      'The', ' answer', ' is', ' ', '4', '2', '.', ' Let', ' me', ' know', ' if', ' you', ' want', ' a', ' longer',
      ' explanation', ' of', ' how', ' I', ' got', ' there', '.',
    ],
  },
  {
    tokenIds: [17453, 25, 279, 1034, 572, 1349, 11, 279, 897, 572, 6049, 11, 323, 279, 2297, 572, 6781, 2041, 5975, 13],
    tokenTexts: [
      'Done', ':', ' the', ' file', ' was', ' read', ',', ' the', ' value', ' was', ' updated', ',', ' and', ' the',
      ' change', ' was', ' saved', ' without', ' errors', '.',
    ],
  },
];

/** Common tokens used as the alternatives in `top_logprobs` (id and text), in both modes. */
export const ALTERNATIVE_TOKENS: ReadonlyArray<readonly [number, string]> = [
  [279, ' the'], [11, ','], [13, '.'], [323, ' and'], [311, ' to'], [315, ' of'], [264, ' a'], [198, '\n'],
  [374, ' is'], [304, ' in'], [785, 'The'], [358, ' I'], [429, ' that'], [432, ' it'], [369, ' for'], [498, ' you'],
  [448, ' with'], [419, ' this'], [389, ' on'], [387, ' be'],
];

/** Qwen's `<|im_end|>`: the end-of-turn token every Qwen2.5/Qwen3 chat completion ends with. */
export const QWEN_IM_END_ID = 151645;
export const QWEN_IM_END_TEXT = '<|im_end|>';
