/**
 * bench/ui-first-screen: how long the viewer's sample page takes to show its first screen of tokens, in Debian's
 * headless Chromium (scripts/install-chromium.sh, driven by playwright-core), for a 100k-token sample and a 1k-token
 * one of the same recorded session shape (bench/ui-sample-store.ts), and the ratio. Target (issue 18): the 100k
 * sample's first screen in under a second.
 *
 * The first screen: from the navigation's start (the page's time origin) until the first `[data-pos]` token is in the
 * document and the frame that shows it has been painted (a requestAnimationFrame, then a task after it), timed inside
 * the page. Also: the sample's API answer as the page fetched it (request start to last byte) and its JSON size, and
 * the same fetched by Node. Each run opens the page in a fresh browser context; the median of `--runs` is reported.
 *
 *   npm run bench:ui [-- --runs 7 --tokens 100000]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { loadHfTokenizer, qwen3TokenizerDir } from '../model-format/tokenizer/load-hf-tokenizer.js';
import { openStore } from '../store/index.js';
import { createViewerApp } from '../ui/server/index.js';
import { VIEWER_API_PREFIX, VIEWER_PREFIX } from '../ui/viewer-api.js';
import { CHROMIUM_ARGS } from './chromium-args.js';
import { recordReadingSessions } from './ui-sample-store.js';

interface RunFigures {
  /** navigation start to the first token's frame painted, ms */
  firstScreenMs: number;
  /** the page's fetch of the sample: request start to its last byte, ms */
  apiMs: number;
  /** the sample's JSON, bytes as sent */
  apiBytes: number;
  /** the answer's last byte to the first token's frame painted (parsing the JSON, rendering the first chunks), ms */
  afterApiMs: number;
  /** tokens in the document at the first screen (only what is on screen is rendered) */
  renderedTokens: number;
}

interface SizeReport {
  label: string;
  sessionId: string;
  tokens: number;
  calls: number;
  runs: RunFigures[];
  /** the same answer fetched by Node (no browser): ms, median */
  nodeApiMs: number;
}

/** Runs in the page before its scripts: notes when the first token is in the document and when its frame was painted. */
const FIRST_SCREEN_PROBE = `
window.__ttFirstScreen = new Promise((resolve) => {
  const done = () => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve({ paintedAt: performance.now(), rendered: document.querySelectorAll('[data-pos]').length });
    channel.port2.postMessage(null);
  });
  const observer = new MutationObserver(() => {
    if (document.querySelector('[data-pos]') === null) return;
    observer.disconnect();
    done();
  });
  observer.observe(document, { childList: true, subtree: true });
});`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, tokens: { type: 'string', default: '100000' } } });
  const runs = Number(values.runs);
  const bigTokens = Number(values.tokens);
  const executablePath = findChromium();
  const db = await benchStore(bigTokens);
  const store = openStore({ path: db, readonly: true });
  const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
  // `tokentap ui --db FILE --tokenizer qwen3`: the pages from dist/ui/ (npm run build)
  const app = createViewerApp({ store, storeLocation: db, tokenizer });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  try {
    const sizes = [
      { label: '1k', sessionId: 'read-1k' },
      { label: `${Math.round(bigTokens / 1000)}k`, sessionId: `read-${bigTokens}` },
    ];
    const reports: SizeReport[] = [];
    for (const size of sizes) reports.push(await measure(browser, base, size, runs, store));
    print(reports, runs, browser.version());
  } finally {
    await browser.close();
    await app.close();
    store.close();
  }
}

async function measure(
  browser: Browser,
  base: string,
  size: { label: string; sessionId: string },
  runs: number,
  store: ReturnType<typeof openStore>,
): Promise<SizeReport> {
  const apiUrl = `${base}${VIEWER_API_PREFIX}/sessions/${encodeURIComponent(size.sessionId)}/samples/merge/0`;
  const pageUrl = `${base}${VIEWER_PREFIX}/#/sessions/${encodeURIComponent(size.sessionId)}/samples/merge/0`;
  const nodeTimes: number[] = [];
  let tokens = 0;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const body = (await (await fetch(apiUrl)).json()) as { tokenIds: number[] };
    nodeTimes.push(performance.now() - started);
    tokens = body.tokenIds.length;
  }
  const figures: RunFigures[] = [];
  // one run first to warm the server's caches and the browser's compilation, as a second visit would be; not counted
  for (let run = -1; run < runs; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.addInitScript(FIRST_SCREEN_PROBE);
    await page.goto(pageUrl);
    // a page that never shows a token fails the bench here instead of hanging it
    await page.locator('[data-pos]').first().waitFor({ state: 'attached', timeout: 30_000 });
    const screen = (await page.evaluate('window.__ttFirstScreen')) as { paintedAt: number; rendered: number };
    const resource = (await page.evaluate(
      `performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/samples/')).map((entry) => ({ ms: entry.responseEnd - entry.startTime, end: entry.responseEnd, bytes: entry.encodedBodySize }))[0] ?? null`,
    )) as { ms: number; end: number; bytes: number } | null;
    await context.close();
    if (run < 0) continue;
    figures.push({
      firstScreenMs: screen.paintedAt,
      apiMs: resource?.ms ?? Number.NaN,
      apiBytes: resource?.bytes ?? Number.NaN,
      afterApiMs: screen.paintedAt - (resource?.end ?? Number.NaN),
      renderedTokens: screen.rendered,
    });
  }
  return { ...size, tokens, calls: store.listCalls(size.sessionId).length, runs: figures, nodeApiMs: median(nodeTimes) };
}

function print(reports: SizeReport[], runs: number, version: string): void {
  console.log(`viewer first screen, Chromium ${version}, 1280x800, median of ${runs} runs (min-max)`);
  console.log('sample | calls | tokens | first screen ms | API ms (page) | API ms (Node) | JSON | last byte to painted ms | tokens rendered');
  for (const report of reports) {
    const first = report.runs.map((run) => run.firstScreenMs);
    const api = report.runs.map((run) => run.apiMs);
    console.log(
      [
        report.label,
        report.calls,
        report.tokens,
        `${median(first).toFixed(0)} (${Math.min(...first).toFixed(0)}-${Math.max(...first).toFixed(0)})`,
        median(api).toFixed(0),
        report.nodeApiMs.toFixed(0),
        `${(median(report.runs.map((run) => run.apiBytes)) / 1e6).toFixed(2)} MB`,
        median(report.runs.map((run) => run.afterApiMs)).toFixed(0),
        median(report.runs.map((run) => run.renderedTokens)),
      ].join(' | '),
    );
  }
  const [small, big] = reports as [SizeReport, SizeReport];
  const ratio = median(big.runs.map((run) => run.firstScreenMs)) / median(small.runs.map((run) => run.firstScreenMs));
  const firstBig = median(big.runs.map((run) => run.firstScreenMs));
  console.log(`ratio ${big.label}/${small.label}: first screen x${ratio.toFixed(2)}, tokens x${(big.tokens / small.tokens).toFixed(0)}`);
  console.log(`target: ${big.label} first screen < 1000 ms: ${firstBig < 1000 ? 'met' : 'NOT met'} (${firstBig.toFixed(0)} ms)`);
}

/** The bench's store in .tmp/, recorded once (bench/ui-sample-store.ts, about 20 s) and reused. */
async function benchStore(bigTokens: number): Promise<string> {
  const path = join('.tmp', `ui-bench-store-${bigTokens}.db`);
  if (existsSync(path)) {
    openStore({ path }).close(); // a store of an older schema is brought up to date once, read-write
    return path;
  }
  mkdirSync('.tmp', { recursive: true });
  const partial = `${path}.partial`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
  console.log(`recording the bench's sessions into ${path} ...`);
  await recordReadingSessions(partial, [
    { sessionId: 'read-1k', tokens: 1_000 },
    { sessionId: `read-${bigTokens}`, tokens: bigTokens },
  ]);
  // checkpointed into the one file before the rename: the WAL's name follows the database's
  openStore({ path: partial }).close();
  renameSync(partial, path);
  for (const suffix of ['-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
  return path;
}

function findChromium(): string {
  try {
    return execFileSync('bash', [join(import.meta.dirname, '../../scripts/install-chromium.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch {
    console.error('bench/ui-first-screen needs Chromium: bash scripts/install-chromium.sh');
    process.exit(3);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

await main();
