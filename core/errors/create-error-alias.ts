import type { ErrorCode } from './error-codes.js';
import { TokentapError } from './tokentap-error.js';

/**
 * An old error class name kept over TokentapError: `new Alias(...)` builds a TokentapError, and
 * `error instanceof Alias` holds for a TokentapError whose code is one of the alias's family.
 */
export interface ErrorAlias<Args extends unknown[], Code extends ErrorCode> {
  new (...args: Args): TokentapError<Code>;
  (...args: Args): TokentapError<Code>;
  [Symbol.hasInstance](value: unknown): value is TokentapError<Code>;
}

/**
 * Keeps a retired error class working for code written against it (`new StoreError(code)`, `instanceof StoreError`),
 * while tokentap itself has one error class. There is no second class: what the alias builds is a TokentapError.
 *
 * @example
 * export const StoreError = createErrorAlias('StoreError', isStoreError, (code: StoreErrorCode) => new TokentapError(code));
 */
export function createErrorAlias<Args extends unknown[], Code extends ErrorCode>(
  name: string,
  isMember: (value: unknown) => value is TokentapError<Code>,
  build: (...args: Args) => TokentapError<Code>,
): ErrorAlias<Args, Code> {
  // a constructor that returns an object gives `new` that object: `new Alias()` is the TokentapError `build` made
  const alias = function (...args: Args): TokentapError<Code> {
    return build(...args);
  };
  Object.defineProperty(alias, 'name', { value: name });
  Object.defineProperty(alias, Symbol.hasInstance, { value: isMember });
  alias.prototype = TokentapError.prototype;
  return alias as unknown as ErrorAlias<Args, Code>;
}
