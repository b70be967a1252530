/**
 * #/sessions/:id/samples/:strategy/:index — a sample token by token.
 *
 * DOM hooks for the browser tests (test/ui/browser/), kept stable:
 * - `data-testid="sample-page"` (with data-strategy, data-index), `token-view` (the scrolling box),
 *   `token-count` (its text is the sample's token count, digits only), `token-inspector` (with data-pos of the
 *   token it shows; `inspector-id`, `inspector-text`, `inspector-logprob`, `inspector-call`, `inspector-position`),
 *   `token-legend`, `policy-legend`, `break-panel` (each break a `break-diff` with data-kind and data-position;
 *   the first differing id of each side has data-differs="true"), `jump-status`.
 * - Controls: `mode-mask`, `mode-logprob` (buttons, aria-pressed), `logprob-threshold` (number input),
 *   `prev-low`, `next-low`, `prev-break`, `next-break` (buttons); keys ←/→, n/N, b/B. `?at=N` in the hash opens
 *   the page jumped to token N.
 * - Every rendered token is `span.tt-tok` with `data-pos` (its index in the sample) and `data-mask` (0 or 1);
 *   a token where a chain break falls has `data-break` (the drift kind); the highlighted (jumped-to) token has
 *   class `tt-hl`; a call's first token has class `tt-call-start`, after a `.tt-call-label` with data-call-seq.
 *   Only the chunks near the viewport are rendered (`.tt-chunk[data-chunk]`); the others are
 *   `.tt-chunk-placeholder` elements: scroll, or jump, to render a token.
 * - Context tokens (mask 0) are coloured `var(--tt-context)`, trained ones `var(--tt-trained)` (in logprob mode,
 *   trained tokens take the heat colour instead); the custom properties are on :root (styles.css).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { SampleTokens, StrategyName } from '../../viewer-api.js';
import { apiPath } from '../api/api-client.js';
import { useApi } from '../api/use-api.js';
import { BreakPanel, TokenInspector, TokenLegend } from '../components/sample-panels.js';
import { SampleToolbar } from '../components/sample-toolbar.js';
import { ErrorBanner, Loading } from '../components/status-views.js';
import type { ColourMode, TokenMarks } from '../components/token-chunk.js';
import { TokenScroller } from '../components/token-scroller.js';
import { policyPalette } from '../logic/colour-scale.js';
import { formatCount, formatScore } from '../logic/format.js';
import { lowLogprobPositions, nextPosition } from '../logic/jump-to-next.js';
import { bandVersions } from '../logic/policy-bands.js';
import { sampleHref, sessionHref } from '../logic/route.js';

const DEFAULT_THRESHOLD = -2;

/** The first token whose line shows in the token box (where the arrow keys start without a focused token). */
function firstTokenOnScreen(): number {
  const box = document.querySelector('[data-testid="token-view"]');
  if (box === null) return 0;
  const top = box.getBoundingClientRect().top;
  for (const token of box.querySelectorAll<HTMLElement>('.tt-chunk [data-pos]'))
    if (token.getBoundingClientRect().bottom > top) return Number(token.dataset.pos);
  return 0;
}

export function SamplePage({ sessionId, strategy, index, at }: { sessionId: string; strategy: StrategyName; index: number; at: number | null }) {
  const state = useApi<SampleTokens>(apiPath(`/sessions/${encodeURIComponent(sessionId)}/samples/${strategy}/${index}`));
  return (
    <section class="tt-page tt-sample-page" data-testid="sample-page" data-strategy={strategy} data-index={index}>
      <div class="tt-page-head">
        <h1>
          <a href={sessionHref(sessionId)} class="tt-id">
            {sessionId}
          </a>{' '}
          › {strategy} sample {index}
        </h1>
        <span class="tt-small">
          {index > 0 ? <a href={sampleHref(sessionId, strategy, index - 1)}>‹ sample {index - 1}</a> : null}{' '}
          {state.data !== null && index + 1 < state.data.samples ? (
            <a href={sampleHref(sessionId, strategy, index + 1)}>sample {index + 1} ›</a>
          ) : null}
        </span>
      </div>
      {state.error ? <ErrorBanner error={state.error} /> : null}
      {state.data === null ? state.loading ? <Loading what="the sample's tokens" /> : null : <SampleView sample={state.data} at={at} />}
    </section>
  );
}

function SampleView({ sample, at }: { sample: SampleTokens; at: number | null }) {
  const [mode, setMode] = useState<ColourMode>('mask');
  const [thresholdText, setThresholdText] = useState(String(DEFAULT_THRESHOLD));
  const [cursor, setCursor] = useState<number | null>(null);
  const [hover, setHover] = useState<number | null>(null);
  const [jump, setJump] = useState<{ position: number; nonce: number } | null>(null);
  const [jumpStatus, setJumpStatus] = useState('');
  const total = sample.tokenIds.length;
  const threshold = Number.isFinite(Number(thresholdText)) && thresholdText.trim() !== '' ? Number(thresholdText) : DEFAULT_THRESHOLD;

  const lowPositions = useMemo(() => lowLogprobPositions(sample.logprobs, threshold), [sample, threshold]);
  const marks = useMemo<TokenMarks>(() => {
    const breaksAt = new Map<number, string>();
    for (const item of sample.summary.breaks) if (total > 0) breaksAt.set(Math.min(Math.max(0, item.position), total - 1), item.kind);
    const callStarts = new Map(sample.calls.map((call) => [call.start, { seq: call.seq, callId: call.callId }]));
    return { breaksAt, callStarts, palette: policyPalette(bandVersions(sample.policyBands)) };
  }, [sample, total]);
  const breakPositions = useMemo(() => [...marks.breaksAt.keys()].sort((a, b) => a - b), [marks]);

  const goTo = (position: number): void => {
    setCursor(position);
    setJump((previous) => ({ position, nonce: (previous?.nonce ?? 0) + 1 }));
  };
  const step = (positions: readonly number[], direction: 1 | -1, what: string): void => {
    const next = nextPosition(positions, cursor, direction);
    if (next === null) setJumpStatus(positions.length === 0 ? `no ${what}` : `no ${what} ${direction === 1 ? 'after' : 'before'} this token`);
    else {
      setJumpStatus(`${what} ${positions.indexOf(next) + 1} of ${positions.length}`);
      goTo(next);
    }
  };

  // opened at a token (`?at=`: a break, where a rollout leaves its group's prefix)
  useEffect(() => {
    if (at !== null && total > 0) goTo(Math.min(at, total - 1));
  }, [at, total]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === 'n') step(lowPositions, 1, 'low-logprob token');
      else if (event.key === 'N') step(lowPositions, -1, 'low-logprob token');
      else if (event.key === 'b') step(breakPositions, 1, 'break');
      else if (event.key === 'B') step(breakPositions, -1, 'break');
      else if ((event.key === 'ArrowRight' || event.key === 'ArrowLeft') && total > 0) {
        // from the focused token, or else from the first one on screen
        const next = cursor === null ? firstTokenOnScreen() : Math.min(total - 1, Math.max(0, cursor + (event.key === 'ArrowRight' ? 1 : -1)));
        if (next !== cursor) goTo(next);
      } else return;
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  const { summary } = sample;
  return (
    <>
      <dl class="tt-facts" data-testid="sample-facts">
        <dt>tokens</dt>
        <dd data-testid="token-count">{total}</dd>
        <dt>trained</dt>
        <dd>{formatCount(summary.trainedTokens)}</dd>
        <dt>prompt</dt>
        <dd>{formatCount(summary.promptLength)}</dd>
        <dt>calls</dt>
        <dd>{sample.calls.length}</dd>
        <dt>status</dt>
        <dd>{summary.status}</dd>
        <dt>reward</dt>
        <dd>{formatScore(summary.reward)}</dd>
        <dt>verifier</dt>
        <dd data-testid="verdict" data-ok={String(summary.verdict.ok)}>
          {summary.verdict.ok ? 'ok ✓' : summary.verdict.errors.join('; ')}
        </dd>
        {sample.texts === null ? (
          <>
            <dt>text</dt>
            <dd class="tt-muted">no tokenizer: tokens show as ⟨id⟩</dd>
          </>
        ) : null}
      </dl>
      <SampleToolbar
        mode={mode}
        onMode={setMode}
        threshold={thresholdText}
        onThreshold={setThresholdText}
        lowCount={lowPositions.length}
        breakCount={breakPositions.length}
        onLow={(direction) => step(lowPositions, direction, 'low-logprob token')}
        onBreak={(direction) => step(breakPositions, direction, 'break')}
        status={jumpStatus}
      />
      <TokenLegend mode={mode} palette={marks.palette} />
      <TokenInspector sample={sample} position={hover ?? cursor} />
      {total === 0 ? (
        <p class="tt-empty">This sample has no tokens.</p>
      ) : (
        <TokenScroller sample={sample} marks={marks} mode={mode} highlighted={cursor} jump={jump} onHover={setHover} onFocusToken={setCursor} />
      )}
      <BreakPanel breaks={summary.breaks} onGoTo={goTo} />
    </>
  );
}
