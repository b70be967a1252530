import fc from 'fast-check';

/**
 * Property tests draw fresh random cases on every run, so running the suite keeps exploring. `FC_SEED=N` fixes the
 * draw for every property of every file (a test's own `seed` still wins): CI sets it, so whether a change lands
 * never hinges on a draw, and any failure it shows replays exactly with the same FC_SEED.
 */
const seed = process.env.FC_SEED;
if (seed !== undefined && seed.trim() !== '') {
  const value = Number(seed);
  if (!Number.isSafeInteger(value)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(seed)}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: value });
}
