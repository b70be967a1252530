#!/usr/bin/env node
// Installs the pinned agent harnesses (test/harnesses/pinned-harnesses.json) into .harness-cache/, outside
// tokentap's own dependencies, for `npm run test:harnesses`. Skips the install when every pinned version is
// already there. Only the npm registry is reached.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, '.harness-cache');
const pins = JSON.parse(readFileSync(join(root, 'test/harnesses/pinned-harnesses.json'), 'utf8'));

function installedVersion(packageName) {
  const manifest = join(cache, 'node_modules', packageName, 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : null;
}

const missing = Object.values(pins).filter(
  (pin) => installedVersion(pin.package) !== pin.version || !existsSync(join(cache, 'node_modules', '.bin', pin.bin)),
);
if (missing.length === 0) {
  console.log(`harnesses: pinned versions already in ${cache}`);
  process.exit(0);
}

mkdirSync(cache, { recursive: true });
// A package.json of its own keeps npm from walking up into tokentap's package.json and lockfile.
const dependencies = Object.fromEntries(Object.values(pins).map((pin) => [pin.package, pin.version]));
// Install scripts (blocked by default from npm 11 on): Claude Code's and OpenCode's postinstall put their
// platform binary in place from an optional dependency (no download); nothing else needs one.
const allowScripts = {
  [`${pins['claude-code'].package}@${pins['claude-code'].version}`]: true,
  [`${pins.opencode.package}@${pins.opencode.version}`]: true,
  '@google/genai': false,
  koffi: false,
  protobufjs: false,
};
writeFileSync(
  join(cache, 'package.json'),
  `${JSON.stringify({ name: 'tokentap-harness-cache', private: true, dependencies, allowScripts }, null, 2)}\n`,
);
const specs = Object.values(pins).map((pin) => `${pin.package}@${pin.version}`);
console.log(`harnesses: installing ${specs.join(' ')} into ${cache}`);
const started = Date.now();
execFileSync('npm', ['install', '--prefix', cache, '--no-audit', '--no-fund', '--no-package-lock'], { stdio: 'inherit' });
const still = Object.values(pins).filter((pin) => installedVersion(pin.package) !== pin.version);
if (still.length > 0) {
  console.error(`harnesses: not installed: ${still.map((pin) => `${pin.package}@${pin.version}`).join(', ')}`);
  process.exit(1);
}
console.log(`harnesses: installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
