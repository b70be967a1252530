/**
 * How one token reads on the sample page: its own text with whitespace made visible, or `⟨id⟩` when the server has
 * no tokenizer. A newline shows as `↵` and still breaks the line, so a token view keeps the text's shape.
 *
 * @example
 * tokenDisplay('\n', 198); // '↵\n'
 * tokenDisplay(null, 198); // '⟨198⟩'
 */
export function tokenDisplay(text: string | null | undefined, id: number): string {
  if (text === null || text === undefined) return `⟨${id}⟩`;
  if (text === '') return '∅';
  // a token of spaces alone would be invisible between its neighbours
  if (/^ +$/.test(text)) return '·'.repeat(text.length);
  return text.replace(/\r/g, '␍').replace(/\t/g, '⇥').replace(/\n/g, '↵\n');
}

/** Text shown in the inspector and the break panel: every whitespace character visible, on one line. */
export function visibleWhitespace(text: string): string {
  return text.replace(/ /g, '·').replace(/\r/g, '␍').replace(/\t/g, '⇥').replace(/\n/g, '↵');
}
