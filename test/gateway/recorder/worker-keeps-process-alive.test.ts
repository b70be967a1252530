import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../../helpers/closed-port.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const run = promisify(execFile);
const LIBRARY = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));

let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => {
  temp?.remove();
  temp = undefined;
});

describe('the recording thread while it starts', () => {
  it('keeps a script alive whose only pending work is `await gateway.listen()` (it exited 13, an unsettled await)', async () => {
    temp = makeTempDir();
    const script = temp.file('embed.mjs');
    // nothing else holds the event loop: no backend, no timer; the recording thread opens the store meanwhile
    writeFileSync(
      script,
      [
        `import { createGateway } from ${JSON.stringify(LIBRARY)};`,
        `const gateway = createGateway({ backendUrl: 'http://127.0.0.1:${await closedPort()}', db: ${JSON.stringify(temp.file('t.db'))}, port: 0 });`,
        'await gateway.listen();',
        "console.log('listening');",
        'await gateway.close();',
        "console.log('closed');",
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [script], { timeout: 30_000 });
    expect(stdout.trim().split('\n')).toEqual(['listening', 'closed']);
  });
});
