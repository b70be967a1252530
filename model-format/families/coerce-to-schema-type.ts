import { isRecord } from '../../core/json/is-record.js';

// vLLM's _TYPE_ALIASES (vllm/tool_parsers/utils.py): schema type names models and tools use for the JSON ones
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  str: 'string',
  text: 'string',
  varchar: 'string',
  char: 'string',
  enum: 'string',
  int: 'integer',
  int32: 'integer',
  int64: 'integer',
  uint: 'integer',
  uint32: 'integer',
  uint64: 'integer',
  long: 'integer',
  short: 'integer',
  unsigned: 'integer',
  float: 'number',
  float32: 'number',
  float64: 'number',
  double: 'number',
  bool: 'boolean',
  dict: 'object',
  arr: 'array',
  list: 'array',
  sequence: 'array',
};
const TYPE_PRIORITY = ['null', 'integer', 'number', 'boolean', 'object', 'array', 'string'] as const;
// what Python's int() and float() accept, after the blanks they strip (digits may be grouped with `_`)
const DIGITS = String.raw`\d+(?:_\d+)*`;
const PYTHON_INT = new RegExp(`^[+-]?${DIGITS}$`);
const PYTHON_FLOAT = new RegExp(`^[+-]?(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`);

/**
 * The `properties` of the named tool's parameters in a chat request's `tools`, `{}` when the tool or its properties are
 * missing (vLLM's `find_tool_properties`: the first tool of that name).
 *
 * @example findToolProperties([{ type: 'function', function: { name: 'ls', parameters: { properties: { path: { type: 'string' } } } } }], 'ls') // { path: { type: 'string' } }
 */
export function findToolProperties(tools: readonly unknown[], name: string): Record<string, unknown> {
  for (const tool of tools) {
    const fn = isRecord(tool) && isRecord(tool.function) ? tool.function : null;
    if (fn === null || fn.name !== name) continue;
    const properties = isRecord(fn.parameters) ? fn.parameters.properties : undefined;
    return isRecord(properties) ? properties : {};
  }
  return {};
}

/**
 * Every type a JSON schema allows, as vLLM's `extract_types_from_schema` reads it: `type` (a name or a list), the types
 * of `enum` values, and the types of `anyOf` / `oneOf` / `allOf` choices; `['string']` when none can be told.
 *
 * @example extractTypesFromSchema({ anyOf: [{ type: 'integer' }, { type: 'null' }] }) // ['integer', 'null']
 */
export function extractTypesFromSchema(schema: unknown): string[] {
  if (!isRecord(schema)) return ['string'];
  const types = new Set<string>();
  if (typeof schema.type === 'string') types.add(schema.type);
  else if (Array.isArray(schema.type)) for (const type of schema.type) if (typeof type === 'string') types.add(type);
  if (Array.isArray(schema.enum)) for (const value of schema.enum) types.add(jsonType(value));
  for (const field of ['anyOf', 'oneOf', 'allOf'] as const) {
    const choices = schema[field];
    if (Array.isArray(choices)) for (const choice of choices) for (const type of extractTypesFromSchema(choice)) types.add(type);
  }
  return types.size === 0 ? ['string'] : [...types];
}

/**
 * A raw parameter text as the first of the schema's types it reads as, in vLLM's order (`coerce_to_schema_type`):
 * null (`null`, any case) > integer (Python's `int()`) > number (`float()`, finite; whole numbers as integers) >
 * boolean (`true`/`1`, `false`/`0`) > object / array (any JSON) > string (the text). Types it does not know leave the
 * text to a last `json.loads`, else the text itself.
 *
 * @example coerceToSchemaType('5', ['integer']) // 5
 * @example coerceToSchemaType('5', ['string']) // '5'
 */
export function coerceToSchemaType(value: string, schemaTypes: readonly string[]): unknown {
  const types = new Set(schemaTypes.map((type) => TYPE_ALIASES[type.trim().toLowerCase()] ?? type.trim().toLowerCase()));
  for (const type of TYPE_PRIORITY) {
    if (!types.has(type)) continue;
    if (type === 'string') return value;
    const coerced = coerceTo(type, value);
    if (coerced !== NOT_THIS_TYPE) return coerced;
  }
  const parsed = parseFiniteJson(value);
  return parsed === NOT_THIS_TYPE ? value : parsed;
}

const NOT_THIS_TYPE = Symbol('not this type');

function coerceTo(type: (typeof TYPE_PRIORITY)[number], value: string): unknown {
  const stripped = value.trim();
  switch (type) {
    case 'null':
      return value.toLowerCase() === 'null' ? null : NOT_THIS_TYPE;
    case 'integer':
      return PYTHON_INT.test(stripped) ? Number(stripped.replaceAll('_', '')) : NOT_THIS_TYPE;
    case 'number': {
      if (!PYTHON_FLOAT.test(stripped)) return NOT_THIS_TYPE;
      const number = Number(stripped.replaceAll('_', ''));
      return Number.isFinite(number) ? number : NOT_THIS_TYPE;
    }
    case 'boolean': {
      const lower = stripped.toLowerCase();
      return lower === 'true' || lower === '1' ? true : lower === 'false' || lower === '0' ? false : NOT_THIS_TYPE;
    }
    default:
      return parseFiniteJson(value);
  }
}

/** `json.loads`, refused (as vLLM's `_is_json_finite` refuses it) when the value holds a number JSON cannot write. */
function parseFiniteJson(value: string): unknown {
  try {
    const parsed = JSON.parse(value) as unknown;
    return isFinite(parsed) ? parsed : NOT_THIS_TYPE;
  } catch {
    return NOT_THIS_TYPE;
  }
}

function isFinite(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isFinite);
  if (isRecord(value)) return Object.values(value).every(isFinite);
  return true;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return 'string';
  return Array.isArray(value) ? 'array' : 'object';
}
