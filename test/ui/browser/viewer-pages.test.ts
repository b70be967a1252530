/**
 * The viewer's pages in real headless Chromium (Debian's, test/helpers/browser.ts) over sessions recorded through the
 * gateway and the simulator (test/helpers/record-viewer-fixture.ts), served as `tokentap ui` serves them: what a
 * person would see, checked against what the store and its reconstruction hold. With TOKENTAP_SCREENSHOTS=1 each page
 * is also saved into docs/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { reconstructSessionReport } from '../../../reconstruct/reconstruct-session.js';
import { browserSkipped, browserSuiteName, saveScreenshot, useBrowser } from '../../helpers/browser.js';
import { recordViewerFixture, type ViewerFixture } from '../../helpers/record-viewer-fixture.js';
import { startViewer, type StartedViewer } from '../../helpers/start-viewer.js';

const browser = useBrowser();
/** a page waits on its server and renders: on two busy cores (the whole suite at once) that can take seconds */
const POLL = { timeout: 15_000 };

describe.skipIf(browserSkipped())(browserSuiteName('the viewer in Chromium'), () => {
  let fixture: ViewerFixture;
  let viewer: StartedViewer;
  beforeAll(async () => {
    fixture = await recordViewerFixture();
    viewer = await startViewer(fixture.dbPath);
  }, 60_000);
  afterAll(async () => {
    await viewer?.close();
    await fixture?.remove();
  });

  const merge = (sessionId: string) => reconstructSessionReport(viewer.store, sessionId, { strategy: 'merge' });

  async function open(hash: string): Promise<Page & { errors: string[] }> {
    const page = await browser.newPage();
    await page.goto(`${viewer.pagesUrl}${hash}`);
    return page;
  }

  it('the sessions page lists every recorded session, with the counts at the top', async () => {
    const page = await open('#/');
    const rows = page.getByTestId('session-row');
    await expect.poll(() => rows.count(), POLL).toBe(6);
    const listed = await rows.evaluateAll((elements: any[]) => elements.map((element) => element.dataset.sessionId as string));
    expect(listed.sort()).toEqual([fixture.sessions.tools, fixture.sessions.edited, ...fixture.sessions.group].sort());
    // the header's counts come from their own request
    await expect.poll(() => page.getByTestId('summary-sessions').textContent(), POLL).toBe('6');
    const calls = listed.reduce((total, sessionId) => total + viewer.store.listCalls(sessionId).length, 0);
    await expect.poll(() => page.getByTestId('summary-calls').textContent(), POLL).toBe(String(calls));
    await saveScreenshot(page, 'sessions');
    expect(page.errors).toEqual([]);
  });

  it("a session's page shows its calls, the tool calls of its conversation and its samples", async () => {
    const page = await open(`#/sessions/${fixture.sessions.tools}`);
    await expect.poll(() => page.getByTestId('call-row').count(), POLL).toBe(viewer.store.listCalls(fixture.sessions.tools).length);
    const toolCalls = await page.getByTestId('tool-call').allTextContents();
    expect(toolCalls.some((text) => text.includes('read_file'))).toBe(true);
    expect(toolCalls.some((text) => text.includes('run_tests'))).toBe(true);
    const cards = page.locator('[data-testid="sample-card"][data-strategy="merge"]');
    expect(await cards.count()).toBe(merge(fixture.sessions.tools).samples.length);
    await saveScreenshot(page, 'session');
    expect(page.errors).toEqual([]);
  });

  it("the sample page shows the store's token count, each token's mask, context tokens in the context colour, and a hovered token's id and logprob", async () => {
    const sample = merge(fixture.sessions.tools).samples[0]!;
    const page = await open(`#/sessions/${fixture.sessions.tools}/samples/merge/0`);
    await expect.poll(() => page.getByTestId('token-count').textContent(), POLL).toBe(String(sample.tokens.length));
    const rendered = await page
      .locator('[data-pos]')
      .evaluateAll((elements: any[]) => elements.map((element) => [Number(element.dataset.pos), Number(element.dataset.mask)] as [number, number]));
    expect(rendered.length).toBeGreaterThan(0);
    for (const [position, mask] of rendered) expect(mask, `mask of token ${position}`).toBe(sample.lossMask[position]);
    expect(rendered.some(([, mask]) => mask === 1)).toBe(true);
    const contextColour = await page.evaluate(resolvedCustomColour, '--tt-context');
    const context = page.locator('[data-mask="0"]').first();
    expect(await context.evaluate(backgroundColour)).toBe(contextColour);
    const trained = page.locator('[data-mask="1"]').first();
    expect(await trained.evaluate(backgroundColour)).not.toBe(contextColour);
    // hovering a trained token shows the store's id and logprob for it, and that a completion sampled it
    const position = Number(await trained.getAttribute('data-pos'));
    await trained.hover();
    await expect.poll(() => page.getByTestId('token-inspector').getAttribute('data-pos'), POLL).toBe(String(position));
    expect(await page.getByTestId('inspector-id').textContent()).toBe(String(sample.tokens[position]));
    expect(await page.getByTestId('inspector-logprob').textContent()).toContain(sample.logprobs[position]!.toFixed(3));
    expect(await page.getByTestId('inspector-call').textContent()).toContain('(completion)');
    expect(page.errors).toEqual([]);
  });

  it("in logprob mode a trained token is redder the lower the store's logprob for it; context keeps its colour", async () => {
    const sample = merge(fixture.sessions.tools).samples[0]!;
    const page = await open(`#/sessions/${fixture.sessions.tools}/samples/merge/0`);
    await expect.poll(() => page.getByTestId('token-count').textContent(), POLL).toBe(String(sample.tokens.length));
    await page.getByTestId('mode-logprob').click();
    await expect.poll(() => page.getByTestId('mode-logprob').getAttribute('aria-pressed'), POLL).toBe('true');
    const trained = await page
      .locator('[data-mask="1"]')
      .evaluateAll((elements: any[]) =>
        elements.map((element) => [Number(element.dataset.pos), (globalThis as any).getComputedStyle(element).backgroundColor] as [number, string]),
      );
    const byLogprob = trained.map(([position, colour]) => ({ logprob: sample.logprobs[position]!, redness: redness(colour) }));
    byLogprob.sort((a, b) => a.logprob - b.logprob);
    const [surest, leastSure] = [byLogprob.at(-1)!, byLogprob[0]!];
    expect(surest.logprob - leastSure.logprob).toBeGreaterThan(1);
    expect(leastSure.redness).toBeGreaterThan(surest.redness);
    const contextColour = await page.evaluate(resolvedCustomColour, '--tt-context');
    expect(await page.locator('[data-mask="0"]').first().evaluate(backgroundColour)).toBe(contextColour);
    expect(page.errors).toEqual([]);
  });

  it('a chain break is marked at the token where its diagnostic puts it, with both sides shown', async () => {
    const report = merge(fixture.sessions.edited);
    expect(report.samples).toHaveLength(2);
    const diagnostic = report.samples[1]!.diagnostics[0]!;
    expect(diagnostic.kind).toBe('history-edited');
    const page = await open(`#/sessions/${fixture.sessions.edited}/samples/merge/1`);
    await expect.poll(() => page.getByTestId('token-count').textContent(), POLL).toBe(String(report.samples[1]!.tokens.length));
    // the session's last sample links back to the one before, and to no sample after it
    expect(report.samples).toHaveLength(2);
    expect(await page.getByRole('link', { name: '‹ sample 0' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'sample 2 ›' }).count()).toBe(0);
    await page.getByTestId('next-break').click();
    const marker = page.locator('[data-break]');
    await expect.poll(() => marker.count(), POLL).toBe(1);
    expect(await marker.getAttribute('data-pos')).toBe(String(diagnostic.position));
    expect(await marker.getAttribute('data-break')).toBe('history-edited');
    const diff = page.getByTestId('break-diff');
    expect(await diff.getAttribute('data-kind')).toBe('history-edited');
    expect(await diff.getAttribute('data-position')).toBe(String(diagnostic.position));
    // the jump puts the inspector on the break's token
    await expect.poll(() => page.getByTestId('token-inspector').getAttribute('data-pos'), POLL).toBe(String(diagnostic.position));
    await saveScreenshot(page, 'sample');
    expect(page.errors).toEqual([]);
  });

  it("the group page shows each rollout's reward, and where the odd one parts from the others", async () => {
    const page = await open(`#/groups/${fixture.groupId}`);
    const rollouts = page.getByTestId('rollout');
    await expect.poll(() => rollouts.count(), POLL).toBe(fixture.rewards.length);
    for (const [index, sessionId] of fixture.sessions.group.entries()) {
      const rollout = page.locator(`[data-testid="rollout"][data-session-id="${sessionId}"]`);
      expect(await rollout.getByTestId('rollout-reward').textContent()).toBe(String(fixture.rewards[index]));
    }
    // the second rollout adds 17 + 24: its tokens leave the group's shared prefix
    const odd = page.locator(`[data-testid="rollout"][data-session-id="${fixture.sessions.group[1]}"]`).getByTestId('divergence');
    expect(Number(await odd.getAttribute('data-diverges-at'))).toBeGreaterThan(0);
    expect(await odd.textContent()).toContain('Adding');
    await saveScreenshot(page, 'group');
    expect(page.errors).toEqual([]);
  });

  it("the overview plots the samples' lengths and the rewards as bars that add up to the store's counts", async () => {
    const page = await open('#/overview');
    const lengths = page.locator('[data-testid="plot-lengths"] rect.tt-plot-bar');
    await expect.poll(() => lengths.count(), POLL).toBeGreaterThan(0);
    const samples = [fixture.sessions.tools, fixture.sessions.edited, ...fixture.sessions.group].reduce(
      (total, sessionId) => total + merge(sessionId).samples.length,
      0,
    );
    expect(await barCounts(page, 'plot-lengths')).toBe(samples);
    expect(await barCounts(page, 'plot-rewards')).toBe(fixture.rewards.length);
    const tallest = await lengths.evaluateAll((elements: any[]) => Math.max(...elements.map((element) => Number(element.getAttribute('height')))));
    expect(tallest).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="plot-drift"] tr[data-name="history-edited"]').count()).toBe(1);
    await saveScreenshot(page, 'overview');
    expect(page.errors).toEqual([]);
  });
});

/** The sum of a histogram's bars' counts. */
async function barCounts(page: Page, testId: string): Promise<number> {
  return page
    .locator(`[data-testid="${testId}"] rect.tt-plot-bar`)
    .evaluateAll((elements: any[]) => elements.reduce((total, element) => total + Number(element.dataset.count), 0));
}

/** In the page: a custom property of :root as the browser resolves a colour (`rgb(...)`), through a probe element. */
function resolvedCustomColour(name: string): string {
  const document = (globalThis as any).document;
  const probe = document.createElement('span');
  probe.style.backgroundColor = `var(${name})`;
  document.body.append(probe);
  const colour = (globalThis as any).getComputedStyle(probe).backgroundColor as string;
  probe.remove();
  return colour;
}

/** How much redder than green an `rgb(r, g, b)` colour is. */
function redness(colour: string): number {
  const [red, green] = (colour.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return (red ?? 0) - (green ?? 0);
}

/** In the page: an element's computed background colour. */
function backgroundColour(element: unknown): string {
  return (globalThis as any).getComputedStyle(element).backgroundColor as string;
}
