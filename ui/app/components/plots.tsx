/** The overview's small SVG plots: a histogram of bins, and labelled horizontal bars. */
import { columnBars, compactNumber } from '../logic/plot-scale.js';

const WIDTH = 420;
const HEIGHT = 140;
const AXIS = 22;
const LEFT = 34;

export interface Bin {
  from: number;
  to: number;
  count: number;
}

/** Columns of bins with their edges on the x axis and the tallest count on the y axis. */
export function Histogram({ bins, label, testId }: { bins: readonly Bin[]; label: string; testId: string }) {
  if (bins.length === 0) return <p class="tt-muted">No data.</p>;
  const plotWidth = WIDTH - LEFT;
  const bars = columnBars(
    bins.map((bin) => bin.count),
    plotWidth,
    HEIGHT,
  );
  const highest = Math.max(...bins.map((bin) => bin.count));
  const labelEvery = Math.ceil(bins.length / 8);
  return (
    <svg class="tt-plot" viewBox={`0 0 ${WIDTH} ${HEIGHT + AXIS}`} role="img" aria-label={label} data-testid={testId}>
      <text x={LEFT - 4} y={10} text-anchor="end" class="tt-plot-axis">
        {compactNumber(highest)}
      </text>
      <text x={LEFT - 4} y={HEIGHT} text-anchor="end" class="tt-plot-axis">
        0
      </text>
      <line x1={LEFT} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} class="tt-plot-line" />
      {bars.map((bar, index) => {
        const bin = bins[index] as Bin;
        return (
          <g key={index}>
            <rect x={LEFT + bar.x} y={bar.y} width={bar.width} height={bar.height} class="tt-plot-bar" data-count={bin.count}>
              <title>
                [{compactNumber(bin.from)}, {compactNumber(bin.to)}): {bin.count}
              </title>
            </rect>
            {index % labelEvery === 0 ? (
              <text x={LEFT + bar.x} y={HEIGHT + 14} class="tt-plot-axis">
                {compactNumber(bin.from)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

/** One labelled bar per entry, longest first. */
export function BarList({ entries, testId }: { entries: Record<string, number>; testId: string }) {
  const rows = Object.entries(entries).sort((a, b) => b[1] - a[1]);
  if (rows.length === 0) return <p class="tt-muted">None.</p>;
  const highest = Math.max(1, ...rows.map(([, count]) => count));
  return (
    <table class="tt-bars" data-testid={testId}>
      <tbody>
        {rows.map(([name, count]) => (
          <tr key={name} data-name={name}>
            <th>{name}</th>
            <td class="tt-bars-cell">
              <span class="tt-bar" style={{ width: `${(count / highest) * 100}%` }} />
            </td>
            <td class="tt-num">{count.toLocaleString('en-US')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
