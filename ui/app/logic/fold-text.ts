/** Long message content is folded to its first lines, with "show all" (issue 18: long content folded). */
export const DEFAULT_FOLD_LINES = 30;

export interface FoldedText {
  /** the text to show folded: the first `maxLines` lines */
  head: string;
  lineCount: number;
  /** false when the text is short enough to show whole */
  folded: boolean;
}

/**
 * @example
 * foldText('a\nb\nc', 2); // { head: 'a\nb', lineCount: 3, folded: true }
 */
export function foldText(text: string, maxLines = DEFAULT_FOLD_LINES): FoldedText {
  let lineCount = 1;
  let cut = -1;
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) !== 10) continue;
    if (lineCount === maxLines) cut = index;
    lineCount += 1;
  }
  // a single enormous line folds too (a minified JSON tool result)
  const maxChars = maxLines * 200;
  if (cut === -1 && text.length > maxChars) return { head: text.slice(0, maxChars), lineCount, folded: true };
  return cut === -1 ? { head: text, lineCount, folded: false } : { head: text.slice(0, cut), lineCount, folded: true };
}

/** A tool call's arguments pretty-printed when they are JSON, as sent otherwise (a model may write broken JSON). */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
