/** A session's training samples under each strategy (tabs), with the verifier's verdict and the breaks that opened them. */
import { useState } from 'preact/hooks';
import type { SampleSummary, StrategyName } from '../../viewer-api.js';
import { formatCount, formatScore } from '../logic/format.js';
import { sampleHref } from '../logic/route.js';

const STRATEGIES: StrategyName[] = ['merge', 'per-call'];

export function SamplesTabs({ sessionId, samples }: { sessionId: string; samples: Record<StrategyName, SampleSummary[]> }) {
  const [strategy, setStrategy] = useState<StrategyName>('merge');
  const shown = samples[strategy] ?? [];
  return (
    <div class="tt-samples" data-testid="samples">
      <div class="tt-tabs" role="tablist">
        {STRATEGIES.map((name) => (
          <button
            key={name}
            type="button"
            role="tab"
            aria-selected={strategy === name}
            data-testid={`tab-${name}`}
            class={strategy === name ? 'tt-tab-current' : ''}
            onClick={() => setStrategy(name)}
          >
            {name} ({(samples[name] ?? []).length})
          </button>
        ))}
      </div>
      {shown.length === 0 ? (
        <p class="tt-muted">No sample under {strategy}.</p>
      ) : (
        <ul class="tt-sample-list">
          {shown.map((sample) => (
            <li key={sample.index} class="tt-sample-card" data-testid="sample-card" data-strategy={sample.strategy} data-index={sample.index}>
              <div class="tt-sample-head">
                <a href={sampleHref(sessionId, sample.strategy, sample.index)} data-testid="sample-link">
                  sample {sample.index} — tokens ›
                </a>
                <span class={`tt-status tt-status-${sample.status}`}>{sample.status}</span>
                {sample.verdict.ok ? (
                  <span class="tt-verdict tt-verdict-ok" data-testid="verdict" data-ok="true">
                    verified ✓
                  </span>
                ) : (
                  <span class="tt-verdict tt-verdict-bad" data-testid="verdict" data-ok="false">
                    verifier: {sample.verdict.errors.length} error{sample.verdict.errors.length === 1 ? '' : 's'}
                  </span>
                )}
                {sample.faithful ? null : <span class="tt-tag tt-tag-warn">not faithful</span>}
              </div>
              <dl class="tt-facts">
                <dt>tokens</dt>
                <dd>{formatCount(sample.tokens)}</dd>
                <dt>trained</dt>
                <dd>{formatCount(sample.trainedTokens)}</dd>
                <dt>prompt</dt>
                <dd>{formatCount(sample.promptLength)}</dd>
                <dt>chain</dt>
                <dd>{sample.chainIndex}</dd>
                <dt>calls</dt>
                <dd>{sample.callIds.length}</dd>
                <dt>reward</dt>
                <dd>{formatScore(sample.reward)}</dd>
                <dt>loss weight</dt>
                <dd>{formatScore(sample.lossWeight)}</dd>
              </dl>
              {sample.verdict.ok ? null : (
                <ul class="tt-verdict-errors">
                  {sample.verdict.errors.map((error, index) => (
                    <li key={index}>{error}</li>
                  ))}
                </ul>
              )}
              {sample.breaks.length === 0 ? null : (
                <ul class="tt-break-list" data-testid="sample-breaks">
                  {sample.breaks.map((item, index) => (
                    <li key={index}>
                      <span class="tt-drift">{item.kind}</span> at token{' '}
                      <a href={sampleHref(sessionId, sample.strategy, sample.index, item.position)}>{formatCount(item.position)}</a>: {item.summary}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
