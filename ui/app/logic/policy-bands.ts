/** Policy-version bands ([start, end) runs over trained tokens) cut to the tokens one chunk renders. */
export interface PolicyBand {
  start: number;
  end: number;
  version: string | null;
}

/**
 * The bands that overlap [start, end), clipped to it, in order. Bands are sorted and disjoint (the server's
 * runs), so the first one is found by binary search.
 */
export function bandsInRange(bands: readonly PolicyBand[], start: number, end: number): PolicyBand[] {
  let low = 0;
  let high = bands.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((bands[middle] as PolicyBand).end <= start) low = middle + 1;
    else high = middle;
  }
  const clipped: PolicyBand[] = [];
  for (let index = low; index < bands.length; index++) {
    const band = bands[index] as PolicyBand;
    if (band.start >= end) break;
    clipped.push({ start: Math.max(start, band.start), end: Math.min(end, band.end), version: band.version });
  }
  return clipped;
}

/**
 * The band of every token in [start, end) as an array (undefined where no band runs, e.g. context tokens), for a
 * chunk to colour its tokens' strips without searching per token.
 */
export function bandPerToken(bands: readonly PolicyBand[], start: number, end: number): Array<PolicyBand | undefined> {
  const perToken: Array<PolicyBand | undefined> = new Array(Math.max(0, end - start)).fill(undefined);
  for (const band of bandsInRange(bands, start, end))
    for (let position = band.start; position < band.end; position++) perToken[position - start] = band;
  return perToken;
}

/** The versions of the bands in order of first appearance (the legend's order). */
export function bandVersions(bands: readonly PolicyBand[]): Array<string | null> {
  return [...new Set(bands.map((band) => band.version))];
}
