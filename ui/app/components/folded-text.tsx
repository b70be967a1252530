/** Text folded to its first lines with "show all" (long message content, tool results). */
import { useState } from 'preact/hooks';
import { DEFAULT_FOLD_LINES, foldText } from '../logic/fold-text.js';

export function FoldedText({ text, class: className = '', maxLines = DEFAULT_FOLD_LINES }: { text: string; class?: string; maxLines?: number }) {
  const [open, setOpen] = useState(false);
  const folded = foldText(text, maxLines);
  if (!folded.folded) return <pre class={`tt-text ${className}`}>{text}</pre>;
  return (
    <div class="tt-folded">
      <pre class={`tt-text ${className}`}>{open ? text : `${folded.head}…`}</pre>
      <button type="button" class="tt-link-button" onClick={() => setOpen(!open)}>
        {open ? 'show less' : `show all (${folded.lineCount} lines, ${text.length.toLocaleString('en-US')} chars)`}
      </button>
    </div>
  );
}
