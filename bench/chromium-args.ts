/**
 * What the browser runs with: no sandbox (the tests run as root in containers, where Chromium's sandbox cannot start),
 * no GPU, /tmp instead of a small /dev/shm, and nothing fetched from the network behind the page's back.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-extensions',
  '--disable-component-update',
  '--disable-sync',
  '--mute-audio',
  '--hide-scrollbars',
  '--font-render-hinting=none',
];
