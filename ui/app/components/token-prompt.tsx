/** Asked for when the API answers 401: the admin token, kept in sessionStorage for the tab. */
import { useState } from 'preact/hooks';

export function TokenPrompt({ onSubmit }: { onSubmit: (token: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="tt-token-prompt"
      data-testid="token-prompt"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim() !== '') onSubmit(value.trim());
      }}
    >
      <p>
        This viewer needs the gateway's admin token (<code>TOKENTAP_ADMIN_TOKEN</code>). It is kept for this tab only.
      </p>
      <input
        type="password"
        autoFocus
        aria-label="Admin token"
        placeholder="admin token"
        value={value}
        onInput={(event) => setValue(event.currentTarget.value)}
      />
      <button type="submit">Use token</button>
    </form>
  );
}
