/**
 * A sample's tokens in a scrolling box that renders only the chunks within the viewport and a margin; every other
 * chunk is a placeholder of its measured (ResizeObserver) or estimated height, so a 100k-token sample paints
 * its first screen as fast as a short one.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SampleTokens } from '../../viewer-api.js';
import { tokenDisplay } from '../logic/token-display.js';
import {
  ChunkHeights,
  chunkOf,
  chunkRanges,
  DEFAULT_CHUNK_SIZE,
  estimateTextHeight,
  visibleChunkRange,
  type LineMetrics,
} from '../logic/token-windowing.js';
import { TokenChunkBlock, type ColourMode, type TokenMarks } from './token-chunk.js';

export interface ScrollerProps {
  sample: SampleTokens;
  marks: TokenMarks;
  mode: ColourMode;
  highlighted: number | null;
  /** a jump: scroll `position` into view and focus it (the nonce makes a second jump to it scroll again) */
  jump: { position: number; nonce: number } | null;
  onHover: (position: number | null) => void;
  onFocusToken: (position: number) => void;
}

const DEFAULT_METRICS: LineMetrics = { charsPerLine: 100, lineHeight: 21 };

export function TokenScroller(props: ScrollerProps) {
  const { sample } = props;
  const box = useRef<HTMLDivElement>(null);
  const probe = useRef<HTMLSpanElement>(null);
  const [metrics, setMetrics] = useState<LineMetrics>(DEFAULT_METRICS);
  const [view, setView] = useState({ scrollTop: 0, height: 800 });
  const [forced, setForced] = useState<number | null>(null);
  const [, setLayoutVersion] = useState(0);
  const chunks = useMemo(() => chunkRanges(sample.tokenIds.length, DEFAULT_CHUNK_SIZE), [sample]);
  const heights = useMemo(() => {
    const estimates = chunks.map((chunk) => {
      const texts: string[] = [];
      for (let position = chunk.start; position < chunk.end; position++)
        texts.push(tokenDisplay(sample.texts?.[position], sample.tokenIds[position] ?? 0));
      return estimateTextHeight(texts, metrics);
    });
    return new ChunkHeights(estimates);
  }, [chunks, metrics]);

  // the box's width and the font decide how many characters fit a line
  useLayoutEffect(() => {
    const element = box.current;
    const sizer = probe.current;
    if (element === null || sizer === null) return;
    const measure = (): void => {
      const charWidth = sizer.getBoundingClientRect().width / 10 || 8;
      const style = getComputedStyle(element);
      const inner = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const lineHeight = parseFloat(getComputedStyle(sizer).lineHeight) || DEFAULT_METRICS.lineHeight;
      const next = { charsPerLine: Math.max(10, Math.floor(inner / charWidth)), lineHeight };
      setMetrics((previous) => (previous.charsPerLine === next.charsPerLine && previous.lineHeight === next.lineHeight ? previous : next));
      setView((previous) => ({ ...previous, height: element.clientHeight }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // rendered chunks report their real heights; a change moves the placeholders below them
  const chunkObserver: ResizeObserver = useMemo(
    () =>
      new ResizeObserver((entries) => {
        let changed = false;
        for (const entry of entries) {
          const element = entry.target as HTMLElement;
          // a chunk scrolled away is removed, and reports no size: its last measurement stands
          if (!element.isConnected) {
            chunkObserver.unobserve(element);
            continue;
          }
          changed = heights.measure(Number(element.dataset.chunk), element.offsetHeight) || changed;
        }
        if (changed) setLayoutVersion((version) => version + 1);
      }),
    [heights],
  );
  useEffect(() => () => chunkObserver.disconnect(), [chunkObserver]);
  useLayoutEffect(() => {
    box.current?.querySelectorAll<HTMLElement>('.tt-chunk').forEach((element) => chunkObserver.observe(element));
  });

  const frame = useRef(0);
  const onScroll = (): void => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => {
      const element = box.current;
      if (element !== null) setView({ scrollTop: element.scrollTop, height: element.clientHeight });
    });
  };

  // a jump renders the target's chunk, then scrolls to the token and focuses it
  useEffect(() => {
    if (props.jump !== null) setForced(chunkOf(props.jump.position, DEFAULT_CHUNK_SIZE));
  }, [props.jump]);
  useEffect(() => {
    if (props.jump === null || forced !== chunkOf(props.jump.position, DEFAULT_CHUNK_SIZE)) return;
    const element = box.current;
    const token = element?.querySelector<HTMLElement>(`[data-pos="${props.jump.position}"]`);
    if (!element || !token) return;
    // scroll the box alone (scrollIntoView would scroll the page too, taking the toolbar away)
    const offset = token.getBoundingClientRect().top - element.getBoundingClientRect().top;
    element.scrollTop += offset - element.clientHeight / 2;
    token.focus({ preventScroll: true });
  }, [props.jump, forced]);

  const range = visibleChunkRange(heights, view.scrollTop, view.height, view.height);
  const highlighted = props.highlighted ?? -1;
  const highlightedChunk = highlighted === -1 ? -1 : chunkOf(highlighted, DEFAULT_CHUNK_SIZE);
  const positionOf = (target: EventTarget | null): number | null => {
    const element = (target as HTMLElement | null)?.closest?.('[data-pos]') as HTMLElement | null | undefined;
    return element ? Number(element.dataset.pos) : null;
  };

  return (
    <div
      class="tt-token-box"
      ref={box}
      data-testid="token-view"
      tabIndex={0}
      role="region"
      aria-label="the sample's tokens: arrow keys move from token to token"
      onScroll={onScroll}
      onMouseOver={(event) => props.onHover(positionOf(event.target))}
      onMouseLeave={() => props.onHover(null)}
      onFocusIn={(event) => {
        const position = positionOf(event.target);
        if (position !== null) props.onFocusToken(position);
      }}
    >
      <span class="tt-tok-probe" ref={probe} aria-hidden="true">
        0000000000
      </span>
      {chunks.map((chunk) =>
        (chunk.index >= range.first && chunk.index <= range.last) || chunk.index === forced ? (
          <TokenChunkBlock
            key={chunk.index}
            chunk={chunk}
            sample={sample}
            marks={props.marks}
            mode={props.mode}
            highlighted={chunk.index === highlightedChunk ? highlighted : -1}
          />
        ) : (
          <div
            key={chunk.index}
            class="tt-chunk-placeholder"
            data-chunk-placeholder={chunk.index}
            style={{ height: `${heights.height(chunk.index)}px` }}
          />
        ),
      )}
    </div>
  );
}
