import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSimBackend } from '../../sim/index.js';

describe('runSimBackend (tokentap sim-backend)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('prints its usage for --help and exits 0', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    expect(await runSimBackend(['--help'])).toBe(0);
    expect(written.join('')).toContain('--tokens-per-second');
    expect(written.join('')).toContain('--flavour F              vllm | sglang');
  });

  it.each([
    [['--port', 'eighty']],
    [['--error-shape', 'round']],
    [['--no-such-flag']],
    [['--flavour', 'tgi']],
    [['--script', '/nonexistent/script.json']],
  ])('rejects %j with exit code 2', async (args) => {
    const errors: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      errors.push(String(chunk));
      return true;
    });
    expect(await runSimBackend(args)).toBe(2);
    expect(errors.join('')).toContain('Usage: tokentap sim-backend');
  });
});
