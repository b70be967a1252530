/** The sessions list's search box and filters; text inputs apply after a short pause in typing. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { localInputToMs, msToLocalInput } from '../logic/format.js';
import { DRIFT_KINDS, type SessionFilters } from '../logic/session-filters.js';

const TYPING_PAUSE_MS = 300;
const STATUSES = ['open', 'completed', 'truncated', 'failed', 'aborted'];
const PAGE_SIZES = [25, 50, 100, 200, 500];

type TextKey = 'search' | 'group' | 'minReward' | 'maxReward' | 'frontDoor' | 'model';

export function SessionFiltersForm({ filters, onChange }: { filters: SessionFilters; onChange: (change: Partial<SessionFilters>) => void }) {
  const text = (key: TextKey, label: string, options: { placeholder?: string; type?: string; wide?: boolean } = {}) => (
    <DebouncedInput key={key} name={key} label={label} value={filters[key]} onCommit={(value) => onChange({ [key]: value })} {...options} />
  );
  return (
    <form class="tt-filters" data-testid="session-filters" onSubmit={(event) => event.preventDefault()}>
      {text('search', 'Search', { placeholder: 'session or group id', wide: true })}
      {text('group', 'Group')}
      <label>
        <span>Status</span>
        <select value={filters.status} onChange={(event) => onChange({ status: event.currentTarget.value })} data-testid="filter-status">
          <option value="">any</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </label>
      {text('minReward', 'Reward ≥', { type: 'number' })}
      {text('maxReward', 'Reward ≤', { type: 'number' })}
      {text('frontDoor', 'Front door', { placeholder: 'openai, anthropic…' })}
      {text('model', 'Model')}
      <label>
        <span>Since</span>
        <input
          type="datetime-local"
          value={msToLocalInput(filters.since)}
          onChange={(event) => onChange({ since: localInputToMs(event.currentTarget.value) })}
        />
      </label>
      <label>
        <span>Until</span>
        <input
          type="datetime-local"
          value={msToLocalInput(filters.until)}
          onChange={(event) => onChange({ until: localInputToMs(event.currentTarget.value) })}
        />
      </label>
      <label>
        <span>Per page</span>
        <select value={String(filters.limit)} onChange={(event) => onChange({ limit: Number(event.currentTarget.value) })}>
          {PAGE_SIZES.map((size) => (
            <option key={size} value={String(size)}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <fieldset class="tt-drift-filter">
        <legend>Drift</legend>
        {DRIFT_KINDS.map((kind) => (
          <label key={kind} class="tt-check">
            <input
              type="checkbox"
              checked={filters.drift.includes(kind)}
              data-drift={kind}
              onChange={(event) =>
                onChange({ drift: event.currentTarget.checked ? [...filters.drift, kind] : filters.drift.filter((other) => other !== kind) })
              }
            />
            {kind}
          </label>
        ))}
      </fieldset>
    </form>
  );
}

function DebouncedInput(props: {
  name: string;
  label: string;
  value: string;
  onCommit: (value: string) => void;
  placeholder?: string;
  type?: string;
  wide?: boolean;
}) {
  const [draft, setDraft] = useState(props.value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // the filters changed from elsewhere (a link, a reset): show them
  useEffect(() => setDraft(props.value), [props.value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <label class={props.wide ? 'tt-wide' : ''}>
      <span>{props.label}</span>
      <input
        type={props.type ?? 'search'}
        value={draft}
        placeholder={props.placeholder}
        step={props.type === 'number' ? 'any' : undefined}
        data-testid={`filter-${props.name}`}
        onInput={(event) => {
          const value = event.currentTarget.value;
          setDraft(value);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => props.onCommit(value), TYPING_PAUSE_MS);
        }}
        onKeyDown={(event) => {
          if (event.key !== 'Enter') return;
          clearTimeout(timer.current);
          props.onCommit(event.currentTarget.value);
        }}
      />
    </label>
  );
}
