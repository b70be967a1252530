/** A session's calls on one time axis: each call's bar as percentages of the session's span. */
import type { CallTimelineItem } from '../../viewer-api.js';

export interface TimelineBar {
  callId: string;
  /** where the call starts, % of the span */
  left: number;
  /** the call's length, % of the span (at least a sliver, so an instant call shows) */
  width: number;
  /** time to first token, % of the call's own bar (null when unknown) */
  firstToken: number | null;
  /** still running (no end recorded): the bar reaches `now` */
  open: boolean;
}

export interface Timeline {
  start: number;
  end: number;
  bars: TimelineBar[];
}

const MIN_WIDTH = 0.4;

/** Bars for `calls`; an unfinished call runs to `now`. */
export function timelineBars(calls: readonly CallTimelineItem[], now: number): Timeline {
  if (calls.length === 0) return { start: 0, end: 0, bars: [] };
  const ends = calls.map((call) => call.endedAt ?? (call.totalMs !== null ? call.startedAt + call.totalMs : Math.max(now, call.startedAt)));
  const start = Math.min(...calls.map((call) => call.startedAt));
  const end = Math.max(start + 1, ...ends);
  const span = end - start;
  const bars = calls.map((call, index) => {
    const callEnd = ends[index] as number;
    const length = Math.max(0, callEnd - call.startedAt);
    const firstToken = call.timeToFirstTokenMs === null || length === 0 ? null : Math.min(100, (call.timeToFirstTokenMs / length) * 100);
    return {
      callId: call.id,
      left: ((call.startedAt - start) / span) * 100,
      width: Math.max(MIN_WIDTH, (length / span) * 100),
      firstToken,
      open: call.endedAt === null && call.totalMs === null,
    };
  });
  return { start, end, bars };
}
