import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runDiagnose } from '../../cli/commands/diagnose.js';
import { runShow } from '../../cli/commands/show.js';
import { openStore } from '../../store/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { recordRawCall } from './record-raw-call.js';

let temp: ReturnType<typeof makeTempDir>;
let db: string;
let calls: string[];

beforeEach(() => {
  temp = makeTempDir('tokentap-diagnose-');
  db = temp.file('t.db');
  const store = openStore({ path: db });
  // "Hello" = 9707, "!" = 0, <|im_end|> = 151645; the third call rewrites the start of the history
  calls = [
    recordRawCall(store, 'run-1', { prompt: [151644, 872, 198], completion: [9707, 151645] }),
    recordRawCall(store, 'run-1', { prompt: [151644, 872, 198, 9707, 151645, 198], completion: [0, 151645] }),
    recordRawCall(store, 'run-1', { prompt: [151644, 872, 198, 0, 151645], completion: [9707] }),
    recordRawCall(store, 'run-1', { prompt: [151644, 872, 198, 0, 151645, 9707, 13], completion: [0], flags: ['completion_ids_mismatch_usage'] }),
  ];
  store.close();
});

afterEach(() => {
  vi.restoreAllMocks();
  temp.remove();
});

async function output(run: () => number | Promise<number>): Promise<{ code: number; text: string }> {
  const chunks: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (chunks.push(String(chunk)), true));
  const code = await run();
  vi.restoreAllMocks();
  return { code, text: chunks.join('') };
}

describe('tokentap show and diagnose', () => {
  it('show prints a drift line with the breaks per kind and the calls without a sample', async () => {
    const { code, text } = await output(() => runShow(['run-1', '--db', db], {}));
    expect(code).toBe(0);
    expect(text).toContain('drift: 2 samples (merge), 1 break: history-edited 1; 1 call without a sample\n');
  });

  it('diagnose lists each break (calls, kind, position, both sides) and each skipped call', async () => {
    const { code, text } = await output(() => runDiagnose(['run-1', '--db', db], {}));
    expect(code).toBe(0);
    expect(text).toContain('session run-1: 4 calls -> 2 samples (merge), 1 break: history-edited 1');
    expect(text).toContain(`#4 ${calls[3]!.slice(0, 8)} ok: flagged completion_ids_mismatch_usage`);
    expect(text).toContain(`#3 ${calls[2]!.slice(0, 8)} <- #2 ${calls[1]!.slice(0, 8)}  history-edited  at token 3`);
    expect(text).toContain('expected: [9707, 151645, 198, 0, 151645]');
    expect(text).toContain('actual:   [0, 151645]');
  });

  it('diagnose --tokenizer qwen3 adds the text, --json gives one object', async () => {
    const text = (await output(() => runDiagnose(['run-1', '--db', db, '--tokenizer', 'qwen3'], {}))).text;
    expect(text).toContain('expected: [9707, 151645, 198, 0, 151645] "Hello<|im_end|>\\n!<|im_end|>"');
    const json = JSON.parse((await output(() => runDiagnose(['run-1', '--json'], { TOKENTAP_DB: db }))).text) as Record<string, any>;
    expect(json.driftCounts).toMatchObject({ 'history-edited': 1 });
    expect(json.samples).toMatchObject([
      { callIds: [calls[0], calls[1]], trainedTokens: 4, lossWeight: 0.5 },
      { callIds: [calls[2]], trainedTokens: 1 },
    ]);
    expect(json.drift[0]).toMatchObject({ callId: calls[2], againstCallId: calls[1], position: 3, kind: 'history-edited' });
    await expect(runDiagnose(['nope', '--db', db], {})).rejects.toThrow(/no session/);
  });
});
