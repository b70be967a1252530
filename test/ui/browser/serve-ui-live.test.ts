/**
 * `tokentap serve --ui` as an operator runs it (the built CLI, a child process in front of the simulator), its pages
 * open in Debian's headless Chromium while the gateway records: sessions appear on the open page as their calls end,
 * without a reload (the viewer's event stream on the gateway's own events).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../../bench/gateway-process.js';
import { createSimBackend, type SimBackend } from '../../../sim/index.js';
import { browserSkipped, browserSuiteName, useBrowser } from '../../helpers/browser.js';
import { closedPort } from '../../helpers/closed-port.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const browser = useBrowser();
/** the page waits on the gateway's event stream and its own refetch: on two busy cores that can take seconds */
const POLL = { timeout: 15_000 };

describe.skipIf(browserSkipped())(browserSuiteName('serve --ui in Chromium'), () => {
  const temp = makeTempDir('tokentap-serve-ui-');
  let sim: SimBackend;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    sim = await createSimBackend({ acceptAnyModel: true, script: { replies: [{ content: 'Hello from the simulator.', times: 'forever' }] } });
    gateway = await startGatewayProcess({ backendUrl: await sim.listen(), db: temp.file('live.db'), port: await closedPort(), args: ['--ui'] });
  }, 60_000);
  afterAll(async () => {
    gateway?.child.kill('SIGTERM');
    await gateway?.exited;
    await sim?.close();
    temp.remove();
  });

  async function recordCall(session: string): Promise<void> {
    const response = await fetch(`${gateway.url}/s/${session}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: `Hello, this is ${session}.` }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
  }

  it('a session recorded while the sessions page is open appears on it without a reload', async () => {
    await recordCall('live-first');
    const page = await browser.newPage();
    await page.goto(`${gateway.url}/ui/`);
    const rows = page.getByTestId('session-row');
    await expect.poll(() => rows.count(), POLL).toBe(1);
    // a reload would lose this
    await page.evaluate(() => ((globalThis as any).__sameDocument = true));
    await recordCall('live-second');
    await expect.poll(() => page.locator('[data-testid="session-row"][data-session-id="live-second"]').count(), POLL).toBe(1);
    await expect.poll(() => page.getByTestId('summary-calls').textContent(), POLL).toBe('2');
    expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
    expect(page.errors).toEqual([]);
  });
});
