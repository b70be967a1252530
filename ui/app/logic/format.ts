/** How numbers, times and durations read on the pages. */

/** 12345 -> '12,345'; null -> '–'. */
export function formatCount(value: number | null | undefined): string {
  return value === null || value === undefined ? '–' : value.toLocaleString('en-US');
}

/** A reward or advantage: up to 3 decimals, '–' for none. */
export function formatScore(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return Number.isInteger(value) ? String(value) : value.toFixed(3).replace(/0+$/, '').replace(/\.$/, '');
}

/** 850 -> '850 ms', 12_300 -> '12.3 s', 190_000 -> '3m 10s'. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes}m ${Math.round((ms % 60_000) / 1000)}s`;
}

/** A time as `2026-12-02 05:31:22` (UTC, as the CLI prints it). */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** A logprob to 3 decimals, with the probability it stands for. */
export function formatLogprob(logprob: number | null | undefined): string {
  if (logprob === null || logprob === undefined) return '– (context)';
  return `${logprob.toFixed(3)} (p=${Math.exp(logprob).toPrecision(3)})`;
}

/** `{ ok: 3, error: 1 }` -> 'ok 3 · error 1'. */
export function formatCounts(counts: Partial<Record<string, number>>): string {
  const parts = Object.entries(counts)
    .filter(([, count]) => (count ?? 0) > 0)
    .map(([name, count]) => `${name} ${count}`);
  return parts.length === 0 ? '–' : parts.join(' · ');
}

/** A datetime-local input's value (local time) to ms, '' for an empty input. */
export function localInputToMs(value: string): string {
  if (value === '') return '';
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? '' : String(ms);
}

/** ms to a datetime-local input's value (local time). */
export function msToLocalInput(value: string): string {
  const ms = Number(value);
  if (value === '' || Number.isNaN(ms)) return '';
  const date = new Date(ms);
  const pad = (part: number): string => String(part).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
