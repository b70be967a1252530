/** One chunk of a sample's tokens, rendered (the scroller renders only the chunks on screen). */
import { Component } from 'preact';
import type { SampleTokens } from '../../viewer-api.js';
import { logprobHeat } from '../logic/colour-scale.js';
import { bandPerToken } from '../logic/policy-bands.js';
import { tokenDisplay } from '../logic/token-display.js';
import type { TokenChunk } from '../logic/token-windowing.js';

export type ColourMode = 'mask' | 'logprob';

export interface TokenMarks {
  /** break kind at each position a break opens */
  breaksAt: ReadonlyMap<number, string>;
  /** the call that starts at each position */
  callStarts: ReadonlyMap<number, { seq: number; callId: string }>;
  palette: ReadonlyMap<string | null, string>;
}

export interface TokenChunkProps {
  chunk: TokenChunk;
  sample: SampleTokens;
  marks: TokenMarks;
  mode: ColourMode;
  /** the highlighted token if it is in this chunk, else -1 (so other chunks do not re-render) */
  highlighted: number;
}

function TokenChunkView({ chunk, sample, marks, mode, highlighted }: TokenChunkProps) {
  const bands = bandPerToken(sample.policyBands, chunk.start, chunk.end);
  const children = [];
  for (let position = chunk.start; position < chunk.end; position++) {
    const call = marks.callStarts.get(position);
    if (call !== undefined) {
      children.push(
        <span key={`call-${position}`} class="tt-call-label" data-call-seq={call.seq} data-call-id={call.callId} aria-hidden="true">
          call #{call.seq}
        </span>,
      );
    }
    const mask = sample.mask[position] ?? 0;
    const band = bands[position - chunk.start];
    const heat = mode === 'logprob' && mask === 1 ? logprobHeat(sample.logprobs[position]) : null;
    const style: Record<string, string> = {};
    if (heat !== null) style.background = heat;
    if (band !== undefined) style['--tt-band'] = marks.palette.get(band.version) ?? 'transparent';
    const breakKind = marks.breaksAt.get(position);
    const text = sample.texts?.[position];
    let className = mask === 1 ? 'tt-tok tt-trained' : 'tt-tok tt-context';
    if (text === undefined || text === null) className += ' tt-idtok';
    else if (text !== '' && text.trim() === '') className += ' tt-ws';
    if (call !== undefined) className += ' tt-call-start';
    if (position === highlighted) className += ' tt-hl';
    children.push(
      <span key={position} class={className} data-pos={position} data-mask={mask} data-break={breakKind} style={style} tabIndex={-1}>
        {tokenDisplay(text, sample.tokenIds[position] ?? 0)}
      </span>,
    );
  }
  return (
    <div class="tt-chunk" data-chunk={chunk.index}>
      {children}
    </div>
  );
}

/** Re-renders only when its own props change (a scroll renders new chunks, not the ones already on screen). */
export class TokenChunkBlock extends Component<TokenChunkProps> {
  override shouldComponentUpdate(next: TokenChunkProps): boolean {
    const current = this.props;
    return (
      next.chunk !== current.chunk ||
      next.sample !== current.sample ||
      next.marks !== current.marks ||
      next.mode !== current.mode ||
      next.highlighted !== current.highlighted
    );
  }

  override render() {
    return TokenChunkView(this.props);
  }
}
