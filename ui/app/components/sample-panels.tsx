/** The sample page's side panels: the token inspector, the legend, and the chain breaks diffed. */
import type { BreakView, SampleTokens } from '../../viewer-api.js';
import { logprobLegend, LOGPROB_FLOOR } from '../logic/colour-scale.js';
import { firstDifference } from '../logic/first-difference.js';
import { formatCount, formatLogprob } from '../logic/format.js';
import { bandsInRange } from '../logic/policy-bands.js';
import { visibleWhitespace } from '../logic/token-display.js';
import type { ColourMode } from './token-chunk.js';

/** The call whose tokens hold `position` (the calls are in token order). */
function callAt(sample: SampleTokens, position: number): SampleTokens['calls'][number] | undefined {
  return sample.calls.find((call) => position >= call.start && position < call.end);
}

/** What the hovered or focused token is: id, text, logprob, call (seq and id), position. */
export function TokenInspector({ sample, position }: { sample: SampleTokens; position: number | null }) {
  if (position === null || position >= sample.tokenIds.length) {
    return (
      <div class="tt-inspector tt-muted" data-testid="token-inspector">
        Hover or focus a token (← → move, n/N low logprob, b/B breaks).
      </div>
    );
  }
  const call = callAt(sample, position);
  const text = sample.texts?.[position];
  const band = bandsInRange(sample.policyBands, position, position + 1)[0];
  const mask = sample.mask[position] ?? 0;
  return (
    <dl class="tt-inspector" data-testid="token-inspector" data-pos={position}>
      <dt>position</dt>
      <dd data-testid="inspector-position">{formatCount(position)}</dd>
      <dt>id</dt>
      <dd data-testid="inspector-id">{sample.tokenIds[position]}</dd>
      <dt>text</dt>
      <dd class="tt-mono" data-testid="inspector-text">
        {text === undefined || text === null ? '(no tokenizer)' : JSON.stringify(text)}{' '}
        {text ? <span class="tt-muted">{visibleWhitespace(text)}</span> : null}
      </dd>
      <dt>mask</dt>
      <dd>{mask === 1 ? '1 (trained)' : '0 (context)'}</dd>
      <dt>logprob</dt>
      <dd data-testid="inspector-logprob">{formatLogprob(sample.logprobs[position])}</dd>
      <dt>policy</dt>
      <dd>{band === undefined ? '–' : (band.version ?? 'unversioned')}</dd>
      <dt>call</dt>
      <dd data-testid="inspector-call">
        {call === undefined ? '–' : `#${call.seq} ${call.callId} (${position < call.completionStart ? 'prompt' : 'completion'})`}
      </dd>
    </dl>
  );
}

export function TokenLegend({ mode, palette }: { mode: ColourMode; palette: ReadonlyMap<string | null, string> }) {
  return (
    <div class="tt-legend" data-testid="token-legend">
      {mode === 'mask' ? (
        <>
          <span class="tt-swatch tt-context">context (mask 0)</span>
          <span class="tt-swatch tt-trained">trained (mask 1)</span>
        </>
      ) : (
        <span class="tt-heat-legend">
          logprob{' '}
          {logprobLegend().map((stop) => (
            <span key={stop.logprob} class="tt-swatch" style={{ background: stop.colour }}>
              {stop.logprob === LOGPROB_FLOOR ? `≤${stop.logprob}` : stop.logprob}
            </span>
          ))}
          <span class="tt-swatch tt-context">context</span>
        </span>
      )}
      {palette.size === 0 ? null : (
        <span class="tt-band-legend" data-testid="policy-legend">
          policy{' '}
          {[...palette].map(([version, colour]) => (
            <span key={version ?? ''} class="tt-band-swatch" style={{ '--tt-band': colour }}>
              {version ?? 'unversioned'}
            </span>
          ))}
        </span>
      )}
      <span class="tt-call-label">call #n</span>
      <span class="tt-break-sample">break</span>
    </div>
  );
}

/** Each break: its kind and summary, and the two sides from where they part, the first differing token marked. */
export function BreakPanel({ breaks, onGoTo }: { breaks: readonly BreakView[]; onGoTo: (position: number) => void }) {
  if (breaks.length === 0) return null;
  return (
    <section class="tt-break-panel" data-testid="break-panel">
      <h2>Chain breaks ({breaks.length})</h2>
      {breaks.map((item, index) => (
        <article key={index} class="tt-break" data-testid="break-diff" data-kind={item.kind} data-position={item.position}>
          <header>
            <span class="tt-drift">{item.kind}</span> at token{' '}
            <button type="button" class="tt-link-button" onClick={() => onGoTo(item.position)}>
              {formatCount(item.position)}
            </button>{' '}
            <span class="tt-muted">
              call {item.callId}
              {item.againstCallId ? ` vs ${item.againstCallId}` : ''}
            </span>
          </header>
          <p>{item.summary}</p>
          <BreakSides expected={item.expected} actual={item.actual} />
        </article>
      ))}
    </section>
  );
}

const SHOWN_IDS = 48;

function BreakSides({ expected, actual }: Pick<BreakView, 'expected' | 'actual'>) {
  const differsAt = firstDifference(expected.tokenIds, actual.tokenIds);
  const textDiffersAt = expected.text !== null && actual.text !== null ? firstDifference(expected.text, actual.text) : -1;
  const side = (label: string, ids: readonly number[], text: string | null) => (
    <div class="tt-break-side" data-side={label}>
      <div class="tt-break-label">{label}</div>
      <div class="tt-id-chips">
        {ids.slice(0, SHOWN_IDS).map((id, index) => (
          <span key={index} class={`tt-id-chip${index === differsAt ? ' tt-differs' : ''}`} data-differs={index === differsAt ? 'true' : undefined}>
            {id}
          </span>
        ))}
        {ids.length > SHOWN_IDS ? <span class="tt-muted"> +{ids.length - SHOWN_IDS} more</span> : null}
        {ids.length === 0 ? <span class="tt-muted">(nothing)</span> : null}
      </div>
      {text === null ? null : (
        <pre class="tt-break-text">
          {textDiffersAt === -1 ? (
            visibleWhitespace(text)
          ) : (
            <>
              {visibleWhitespace(text.slice(0, textDiffersAt))}
              <mark>{visibleWhitespace(text.slice(textDiffersAt))}</mark>
            </>
          )}
        </pre>
      )}
    </div>
  );
  return (
    <div class="tt-break-sides">
      {side('expected', expected.tokenIds, expected.text)}
      {side('actual', actual.tokenIds, actual.text)}
    </div>
  );
}
