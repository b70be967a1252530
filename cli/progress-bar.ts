/** Where a progress bar draws: a terminal stream (process.stderr). */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressBar {
  /** redraws at most every `intervalMs` (and always at the end) */
  update(done: number, total: number, note?: string): void;
  /** clears the bar's line */
  finish(): void;
}

const NO_PROGRESS: ProgressBar = { update() {}, finish() {} };

/**
 * A one-line progress bar on a terminal; nothing at all when the stream is not a TTY (pipes, CI logs), so
 * output stays clean when redirected.
 *
 * @example
 * const bar = createProgressBar(process.stderr, 'sessions');
 * bar.update(120, 1000, '3,481 samples');
 * bar.finish();
 */
export function createProgressBar(stream: ProgressStream, unit: string, intervalMs = 100): ProgressBar {
  if (stream.isTTY !== true) return NO_PROGRESS;
  let drawnAt = 0;
  let drawn = false;
  return {
    update(done, total, note) {
      const now = Date.now();
      if (done < total && now - drawnAt < intervalMs) return;
      drawnAt = now;
      drawn = true;
      const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 50));
      const fraction = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(fraction * width);
      const bar = '#'.repeat(filled) + '.'.repeat(width - filled);
      stream.write(
        `\r[${bar}] ${String(Math.round(fraction * 100)).padStart(3)}% ${done}/${total} ${unit}${note === undefined ? '' : `  ${note}`}\x1b[K`,
      );
    },
    finish() {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}
