/**
 * The sample page's colours. Logprob heat runs from pale green (the backend was sure) through yellow to red (it
 * was not); policy versions get distinct hues in the order they first appear.
 */

/** The logprob at and below which the heat scale is at its reddest. */
export const LOGPROB_FLOOR = -8;

/**
 * The heat colour of a trained token's logprob (an `hsl()` string); null for a token without one (context).
 *
 * @example
 * logprobHeat(0); // 'hsl(120 60% 88%)'
 */
export function logprobHeat(logprob: number | null | undefined, floor = LOGPROB_FLOOR): string | null {
  if (logprob === null || logprob === undefined || Number.isNaN(logprob)) return null;
  const t = Math.min(1, Math.max(0, logprob / floor));
  const hue = Math.round(120 * (1 - t));
  const lightness = Math.round(88 - 26 * t);
  return `hsl(${hue} ${60 + Math.round(20 * t)}% ${lightness}%)`;
}

/** Stops for the heat scale's legend, from 0 down to the floor. */
export function logprobLegend(floor = LOGPROB_FLOOR, steps = 5): Array<{ logprob: number; colour: string }> {
  return Array.from({ length: steps }, (_, index) => {
    const logprob = (floor * index) / (steps - 1);
    return { logprob, colour: logprobHeat(logprob, floor) as string };
  });
}

/** Hues spaced by the golden angle, so neighbouring versions never look alike. */
const GOLDEN_ANGLE = 137.508;
/** The colour of trained tokens of no policy version. */
export const UNVERSIONED_COLOUR = '#9aa0a6';

/**
 * One colour per policy version, in the order the versions first appear; null (unversioned) is grey.
 *
 * @example
 * policyPalette(['v1', 'v2', 'v1']).get('v2'); // 'hsl(138 65% 45%)'
 */
export function policyPalette(versions: Iterable<string | null>): Map<string | null, string> {
  const palette = new Map<string | null, string>();
  let next = 0;
  for (const version of versions) {
    if (palette.has(version)) continue;
    if (version === null) palette.set(null, UNVERSIONED_COLOUR);
    else palette.set(version, `hsl(${Math.round((210 + next++ * GOLDEN_ANGLE) % 360)} 65% 45%)`);
  }
  return palette;
}
