/** Scales for the overview's small SVG plots. */

/** About `count` round tick values covering [min, max] (1, 2 or 5 times a power of ten apart). */
export function niceTicks(min: number, max: number, count = 4): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (min === max) return [min];
  const raw = (max - min) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((factor) => factor * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let tick = Math.ceil(min / step) * step; tick <= max + step * 1e-9; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return ticks;
}

export interface BarGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Columns for `counts` in a `width` x `height` plot area, the tallest reaching the top. */
export function columnBars(counts: readonly number[], width: number, height: number, gap = 2): BarGeometry[] {
  const highest = Math.max(1, ...counts);
  const slot = counts.length === 0 ? 0 : width / counts.length;
  return counts.map((count, index) => {
    const barHeight = (count / highest) * height;
    return { x: index * slot + gap / 2, y: height - barHeight, width: Math.max(1, slot - gap), height: barHeight };
  });
}

/** A compact label for a bin edge: 1024 -> '1k', 1_500_000 -> '1.5M'. */
export function compactNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e3) return `${Number((value / 1e3).toPrecision(3))}k`;
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
}
