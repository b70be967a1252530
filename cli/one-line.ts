/**
 * A text on one terminal line (an error message in a listing): its line breaks and tabs become single spaces.
 *
 * @example oneLine('engine dead:\n  CUDA out of memory') // 'engine dead: CUDA out of memory'
 */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\t]+\s*/g, ' ').trim();
}
