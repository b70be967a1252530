import type { Migration } from './migration.js';

/**
 * A token-faithful call sends the backend a token-id prompt (docs/token-faithful.md), so its backend request holds
 * no conversation; the chat request its prompt was rendered from is kept beside it, so that text exports (SFT
 * formats) and drift classification read the conversation the model saw, whatever front door the harness used.
 */
export const chatRequestBodyMigration: Migration = {
  version: 4,
  name: 'chat-request-body',
  sql: `
-- deflated body envelope (body-store.ts) of the chat request a token-faithful prompt was rendered from; NULL when
-- the backend request is itself a chat request (or for calls recorded before this column)
ALTER TABLE call_bodies ADD COLUMN chat_request_body BLOB;
`,
};
