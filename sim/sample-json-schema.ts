import { isRecord } from '../core/json/is-record.js';
import type { SeededRandom } from './seeded-random.js';

type Schema = Record<string, unknown>;

const WORDS = ['alpha', 'report', 'main', 'config', 'notes', 'draft', 'value', 'index', 'README.md', 'src/app.ts'];
const MAX_DEPTH = 4;

/**
 * A value that fits a tool's JSON-schema `parameters`: objects get all required properties and some optional
 * ones, enums/consts pick an allowed value, numbers respect minimum/maximum, arrays minItems/maxItems.
 * Unknown or missing schemas give a short string. Deterministic for a given random source.
 *
 * @example
 * sampleJsonSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, random);
 * // { city: 'notes' }
 */
export function sampleJsonSchema(schema: unknown, random: SeededRandom, depth = 0): unknown {
  if (!isRecord(schema)) return random.pick(WORDS);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return random.pick(schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(choices) && choices.length > 0) return sampleJsonSchema(random.pick(choices), random, depth);
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return sampleJsonSchema(schema.allOf[0], random, depth);
  const type = Array.isArray(schema.type) ? pickType(schema.type, random) : schema.type;
  switch (type) {
    case 'object':
      return sampleObject(schema, random, depth);
    case 'array':
      return sampleArray(schema, random, depth);
    case 'integer':
      return random.integer(numberBound(schema.minimum, 0), numberBound(schema.maximum, Math.max(numberBound(schema.minimum, 0), 100)));
    case 'number':
      return Math.round((numberBound(schema.minimum, 0) + random.next() * 100) * 100) / 100;
    case 'boolean':
      return random.chance(0.5);
    case 'null':
      return null;
    default:
      return sampleString(schema, random);
  }
}

function sampleObject(schema: Schema, random: SeededRandom, depth: number): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const value: Record<string, unknown> = {};
  if (depth >= MAX_DEPTH) return value;
  for (const [name, property] of Object.entries(properties)) {
    if (required.has(name) || random.chance(0.5)) value[name] = sampleJsonSchema(property, random, depth + 1);
  }
  return value;
}

function sampleArray(schema: Schema, random: SeededRandom, depth: number): unknown[] {
  if (depth >= MAX_DEPTH) return [];
  const minimum = numberBound(schema.minItems, 1);
  const count = random.integer(minimum, Math.max(minimum, numberBound(schema.maxItems, minimum + 2)));
  return Array.from({ length: count }, () => sampleJsonSchema(schema.items, random, depth + 1));
}

function sampleString(schema: Schema, random: SeededRandom): string {
  if (schema.format === 'date') return '2025-01-15';
  if (schema.format === 'date-time') return '2025-01-15T09:30:00Z';
  if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/' + random.pick(WORDS);
  const text = random.pick(WORDS);
  const minimum = numberBound(schema.minLength, 0);
  return text.length >= minimum ? text : text.padEnd(minimum, 'x');
}

function pickType(types: unknown[], random: SeededRandom): unknown {
  const nonNull = types.filter((entry) => entry !== 'null');
  return nonNull.length > 0 ? random.pick(nonNull) : 'null';
}

function numberBound(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
