/** The sample page's controls: colour by mask or logprob, the low-logprob threshold, and the jumps. */
import { formatCount } from '../logic/format.js';
import type { ColourMode } from './token-chunk.js';

export interface SampleToolbarProps {
  mode: ColourMode;
  onMode: (mode: ColourMode) => void;
  /** the threshold input's text */
  threshold: string;
  onThreshold: (text: string) => void;
  lowCount: number;
  breakCount: number;
  onLow: (direction: 1 | -1) => void;
  onBreak: (direction: 1 | -1) => void;
  /** what the last jump found */
  status: string;
}

export function SampleToolbar(props: SampleToolbarProps) {
  return (
    <div class="tt-toolbar" data-testid="token-toolbar">
      <span class="tt-segmented" role="group" aria-label="colour by">
        <button type="button" aria-pressed={props.mode === 'mask'} data-testid="mode-mask" onClick={() => props.onMode('mask')}>
          loss mask
        </button>
        <button type="button" aria-pressed={props.mode === 'logprob'} data-testid="mode-logprob" onClick={() => props.onMode('logprob')}>
          logprob heat
        </button>
      </span>
      <label>
        logprob &lt;{' '}
        <input
          type="number"
          step="0.5"
          value={props.threshold}
          data-testid="logprob-threshold"
          onInput={(event) => props.onThreshold(event.currentTarget.value)}
        />
      </label>
      <button type="button" data-testid="prev-low" onClick={() => props.onLow(-1)} title="N">
        ‹ low
      </button>
      <button type="button" data-testid="next-low" onClick={() => props.onLow(1)} title="n">
        low ›
      </button>
      <span class="tt-muted">{formatCount(props.lowCount)} below</span>
      <button type="button" data-testid="prev-break" onClick={() => props.onBreak(-1)} disabled={props.breakCount === 0} title="B">
        ‹ break
      </button>
      <button type="button" data-testid="next-break" onClick={() => props.onBreak(1)} disabled={props.breakCount === 0} title="b">
        break ›
      </button>
      <span class="tt-jump-status" data-testid="jump-status" aria-live="polite">
        {props.status}
      </span>
    </div>
  );
}
