import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { inspectJson, type JsonProblem } from './inspect-json.js';

export interface JsonBodyParserOptions {
  /** deepest nesting of arrays and objects a body may have (the top-level object is 1) */
  maxDepth: number;
}

const PROBLEM_MESSAGES: Record<JsonProblem, (maxDepth: number) => string> = {
  'too-deep': (maxDepth) => `Body is nested deeper than ${maxDepth} levels (maxJsonDepth)`,
  'prototype-key': () => 'Body contains a "__proto__" key, or a "constructor" key holding "prototype"; these are refused',
  'lone-surrogate': () =>
    'Body contains a string or key with a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape not part of a pair); it is not Unicode text',
  'non-finite-number': () => 'Body contains a number too large to represent (e.g. 1e400); it would reach the backend as null',
};

/**
 * Replaces fastify's JSON body parser for every route with a stricter one: bytes that are not UTF-8 are refused
 * (RFC 8259 section 8.1; decoding them would store U+FFFD in place of what the harness sent), and so are bodies
 * nested deeper than `maxDepth`, keys that could rewrite a prototype, lone surrogates in keys and strings, and numbers
 * past Number.MAX_VALUE (inspect-json.ts). Each refusal is a 400 TT_INVALID_REQUEST,
 * which every scope's error handler sends in its own protocol's shape. `bodyLimit` still applies while reading.
 *
 * @example registerJsonBodyParser(app, { maxDepth: config.maxJsonDepth }) // before the routes' scopes
 */
export function registerJsonBodyParser(app: FastifyInstance, options: JsonBodyParserOptions): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(invalid("Body cannot be empty when content-type is 'application/json'"), undefined);
    if (!isUtf8(bytes)) return done(invalid('Body is not valid UTF-8'), undefined);
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      // the SyntaxError quotes the body: not echoed, since rejections are logged at info level
      return done(invalid('Body is not valid JSON'), undefined);
    }
    const problem = inspectJson(value, options.maxDepth);
    if (problem !== null) return done(invalid(PROBLEM_MESSAGES[problem](options.maxDepth)), undefined);
    done(null, value);
  });
}

function invalid(message: string): TokentapError {
  return new TokentapError('TT_INVALID_REQUEST', { message });
}
