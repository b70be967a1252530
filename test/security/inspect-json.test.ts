import { describe, expect, it } from 'vitest';
import { inspectJson } from '../../gateway/security/inspect-json.js';

describe('inspectJson', () => {
  it('counts the top-level container as level 1 and refuses one level past the limit', () => {
    expect(inspectJson(JSON.parse('{"a":[[1]]}'), 3)).toBeNull();
    expect(inspectJson(JSON.parse('{"a":[[1]]}'), 2)).toBe('too-deep');
    expect(inspectJson(JSON.parse('[{"a":{}}]'), 3)).toBeNull();
    expect(inspectJson('scalar', 1)).toBeNull();
    expect(inspectJson(null, 1)).toBeNull();
  });

  it('walks a million levels without overflowing the stack', () => {
    const deep = JSON.parse('['.repeat(1_000_000) + ']'.repeat(1_000_000)) as unknown;
    expect(inspectJson(deep, 512)).toBe('too-deep');
    expect(inspectJson(deep, 1_000_000)).toBeNull();
  });

  it('finds a deep one among wide shallow siblings', () => {
    const wide = { items: Array.from({ length: 1000 }, () => ({ a: 1 })), last: JSON.parse('['.repeat(20) + ']'.repeat(20)) as unknown };
    expect(inspectJson(wide, 21)).toBeNull();
    expect(inspectJson(wide, 20)).toBe('too-deep');
  });

  it('refuses __proto__ anywhere, whatever its value, and constructor holding prototype', () => {
    expect(inspectJson(JSON.parse('{"__proto__":{"x":1}}'), 64)).toBe('prototype-key');
    expect(inspectJson(JSON.parse('{"__proto__":1}'), 64)).toBe('prototype-key');
    expect(inspectJson(JSON.parse('{"a":[{"b":{"__proto__":null}}]}'), 64)).toBe('prototype-key');
    expect(inspectJson(JSON.parse('{"constructor":{"prototype":{"x":1}}}'), 64)).toBe('prototype-key');
  });

  it('lets through the keys that only look alike', () => {
    expect(inspectJson(JSON.parse('{"constructor":"Foo","prototype":{},"proto":{},"__proto":1,"a":{"constructor":{"name":"x"}}}'), 64)).toBeNull();
  });

  it('refuses a lone surrogate in any string or key, at any depth, and takes whole pairs', () => {
    for (const text of ['"\\udc00"', '{"m":"a\\ud800"}', '[["\\udc00\\ud800"]]', '{"a":{"k\\udfff":1}}', '{"\\ud800":"x"}', '[1,"ok","\\ud83d"]']) {
      expect(inspectJson(JSON.parse(text), 64), text).toBe('lone-surrogate');
    }
    expect(inspectJson(JSON.parse('{"e":"\\ud83d\\ude00","\\ud83d\\ude00":["\\u00e9\\u4e2d"]}'), 64)).toBeNull();
  });

  it('refuses a number JSON.parse made Infinity, anywhere, and takes the largest finite ones', () => {
    for (const text of ['1e400', '-1e400', '{"max_tokens":1e400}', '[[0,1E+309]]', `{"a":[{"n":${'9'.repeat(400)}}]}`]) {
      expect(inspectJson(JSON.parse(text), 64), text).toBe('non-finite-number');
    }
    expect(inspectJson(JSON.parse('[1.7976931348623157e308,-1.7976931348623157e308,1e-400,-0]'), 64)).toBeNull();
  });
});
