/**
 * Real headless Chromium for the viewer's browser tests: Debian's package (scripts/install-chromium.sh, found once
 * per run by test/helpers/chromium-global-setup.ts), driven by playwright-core, which never downloads a browser. One
 * browser per test file, launched before its tests and closed after them; each test opens pages in a context of its
 * own (1280x800, UTC, en-US, light), so what a page shows does not depend on the machine.
 *
 * Where Chromium cannot be had, the suites skip naming why (browserSuiteName); under CI they fail instead.
 *
 * @example
 * const browser = useBrowser();
 * describe.skipIf(browserSkipped())(browserSuiteName('sessions page'), () => {
 *   it('lists the session', async () => { const page = await browser.newPage(); await page.goto(url); });
 * });
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { CHROMIUM_ARGS } from '../../bench/chromium-args.js';

/** The viewport of every page (and so of the screenshots in docs/screenshots/). */
export const VIEWPORT = { width: 1280, height: 800 };

/** Chromium's path, or null when it is not there (browserUnavailable says why). */
export function chromiumPath(): string | null {
  return inject('chromium')?.path ?? null;
}

/** Why there is no Chromium here. */
export function browserUnavailable(): string {
  return inject('chromium')?.unavailable ?? 'Chromium was not looked for (vitest.config.ts globalSetup)';
}

/** For `describe.skipIf`: no Chromium, and not under CI (where its absence fails the suite). */
export function browserSkipped(): boolean {
  return chromiumPath() === null && process.env.CI !== 'true';
}

/** A suite name saying why it is skipped, when it is. */
export function browserSuiteName(name: string): string {
  return browserSkipped() ? `${name} (skipped: ${browserUnavailable()})` : name;
}

export interface BrowserForTests {
  readonly browser: Browser;
  /**
   * A page in a fresh context; the errors it throws and logs are collected in `errors` (a test asserts none). Closed
   * with the browser at the end of the file, or earlier with `page.context().close()`.
   */
  newPage(): Promise<Page & { errors: string[] }>;
}

/** Launches Chromium before the file's tests and closes it after them. */
export function useBrowser(): BrowserForTests {
  const state = { browser: null as Browser | null };
  beforeAll(async () => {
    if (browserSkipped()) return;
    state.browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await state.browser?.close();
  });
  return {
    get browser(): Browser {
      if (state.browser === null) throw new Error('Chromium was not launched (useBrowser must be called at the top of the file)');
      return state.browser;
    },
    async newPage() {
      if (state.browser === null) throw new Error('Chromium was not launched (useBrowser must be called at the top of the file)');
      const context = await state.browser.newContext({
        viewport: VIEWPORT,
        deviceScaleFactor: 1,
        colorScheme: 'light',
        locale: 'en-US',
        timezoneId: 'UTC',
        reducedMotion: 'reduce',
      });
      const page = (await context.newPage()) as Page & { errors: string[] };
      page.errors = [];
      page.on('pageerror', (error) => page.errors.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') page.errors.push(`console.error: ${message.text()}`);
      });
      return page;
    },
  };
}

/** Launches Debian's Chromium headless with CHROMIUM_ARGS; under CI, a missing one is an error naming why. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === null) throw new Error(`Chromium is needed for the browser tests: ${browserUnavailable()}`);
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

/** Where the screenshots go: docs/screenshots/, tracked. */
export const SCREENSHOT_DIR = join(import.meta.dirname, '../../docs/screenshots');

/**
 * Saves the page as docs/screenshots/<name>.png, only when TOKENTAP_SCREENSHOTS=1 (so a test run, CI's included, never
 * rewrites the tracked images); the viewport only, so the image's size is the same every time.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.TOKENTAP_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), animations: 'disabled', caret: 'hide' });
}
