import { isRecord } from '../../../core/json/is-record.js';

/**
 * The `# Tools` section of a Harmony developer message: function tools as a TypeScript namespace, ported from
 * openai/harmony `src/encoding.rs` (`template_tools_section`, `json_schema_to_typescript`) so that the text
 * is the one gpt-oss was trained on. Object keys keep their order (harmony builds serde_json with
 * `preserve_order`).
 */

export interface HarmonyTool {
  name: string;
  description: string;
  /** the JSON schema of the arguments; null renders `() => any` */
  parameters: unknown;
}

/**
 * @example
 * harmonyToolsSection([{ name: 'get_location', description: 'Gets the location of the user.', parameters: null }]);
 * // '# Tools\n\n## functions\n\nnamespace functions {\n\n// Gets the location of the user.\ntype get_location = () => any;\n\n} // namespace functions'
 */
export function harmonyToolsSection(tools: readonly HarmonyTool[]): string {
  const lines = ['## functions\n', 'namespace functions {\n'];
  for (const tool of tools) {
    for (const line of rustLines(tool.description)) lines.push(`// ${line}`);
    if (tool.parameters === null || tool.parameters === undefined) lines.push(`type ${tool.name} = () => any;\n`);
    else lines.push(`type ${tool.name} = (_: ${jsonSchemaToTypescript(tool.parameters, '')}) => any;\n`);
  }
  lines.push('} // namespace functions');
  return ['# Tools', lines.join('\n')].join('\n\n');
}

/**
 * A JSON schema as the TypeScript-like type Harmony shows the model.
 *
 * @example
 * jsonSchemaToTypescript({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, '');
 * // '{\ncity: string,\n}'
 */
export function jsonSchemaToTypescript(schema: unknown, indent: string): string {
  if (!isRecord(schema)) return 'any';
  if (Array.isArray(schema.oneOf)) return oneOfType(schema.oneOf, indent);
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type): type is string => typeof type === 'string');
    if (types.length > 0) return types.map((type) => (type === 'integer' ? 'number' : type)).join(' | ');
  }
  switch (typeof schema.type === 'string' ? schema.type : undefined) {
    case 'object':
      return objectType(schema, indent);
    case 'string': {
      const values = Array.isArray(schema.enum) ? schema.enum.filter((value) => typeof value === 'string') : [];
      return values.length > 0 ? values.map((value) => `"${value}"`).join(' | ') : 'string';
    }
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return 'items' in schema ? `${jsonSchemaToTypescript(schema.items, indent)}[]` : 'Array<any>';
    default:
      return 'any';
  }
}

/** A top-level `oneOf`: each variant on its own ` | ` line with its description and default after it. */
function oneOfType(variants: readonly unknown[], indent: string): string {
  let out = '';
  for (const variant of variants) {
    out += `\n${indent} | ${nullableType(variant, `${indent}   `)}`;
    const comments: string[] = [];
    if (isRecord(variant)) {
      if (typeof variant.description === 'string') comments.push(variant.description);
      // here harmony prints a string default of an enum through serde's Display: quoted
      if ('default' in variant) comments.push(`default: ${defaultText(variant.default, variant, false)}`);
    }
    if (comments.length > 0) out += ` // ${comments.join(' ')}`;
  }
  return out;
}

function objectType(schema: Record<string, unknown>, indent: string): string {
  let out = typeof schema.description === 'string' ? `${indent}// ${schema.description}\n` : '';
  out += '{\n';
  if (isRecord(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === 'string') : []);
    for (const [key, value] of Object.entries(schema.properties)) {
      out += propertyText(key, isRecord(value) ? value : {}, required.has(key), indent);
    }
  }
  return `${out}${indent}}`;
}

function propertyText(key: string, property: Record<string, unknown>, required: boolean, indent: string): string {
  let out = '';
  if (typeof property.title === 'string') out += `${indent}// ${property.title}\n${indent}//\n`;
  if (property.oneOf === undefined && typeof property.description === 'string') out += `${indent}// ${property.description}\n`;
  if (Array.isArray(property.examples) && property.examples.length > 0) {
    out += `${indent}// Examples:\n`;
    for (const example of property.examples) if (typeof example === 'string') out += `${indent}// - "${example}"\n`;
  }
  if (Array.isArray(property.oneOf)) return out + oneOfPropertyText(key, property, property.oneOf, required, indent);
  out += `${indent}${key}${required ? '' : '?'}: ${nullableType(property, `${indent}    `)},`;
  if (property.oneOf === undefined && 'default' in property) out += ` // default: ${defaultText(property.default, property, true)}`;
  return `${out}\n`;
}

/** A property whose schema is a `oneOf`: its description above (unless the first variant repeats it), variants below. */
function oneOfPropertyText(key: string, property: Record<string, unknown>, variants: readonly unknown[], required: boolean, indent: string): string {
  const propertyDescription = typeof property.description === 'string' ? property.description : null;
  const first = variants[0];
  const repeated = propertyDescription !== null && isRecord(first) && first.description === propertyDescription;
  const describedAbove = !repeated && propertyDescription !== null;
  let out = describedAbove ? `${indent}// ${propertyDescription}\n` : '';
  if ('default' in property) out += `${indent}// default: ${defaultText(property.default, property, true)}\n`;
  out += `${indent}${key}${required ? '' : '?'}:\n`;
  variants.forEach((variant, index) => {
    out += `${indent} | ${nullableType(variant, `${indent}   `)}`;
    const comments: string[] = [];
    if (isRecord(variant)) {
      const description = variant.description;
      if (!(index === 0 && describedAbove) && typeof description === 'string' && description !== propertyDescription) comments.push(description);
      if ('default' in variant) comments.push(`default: ${defaultText(variant.default, variant, true)}`);
    }
    if (comments.length > 0) out += ` // ${comments.join(' ')}`;
    out += '\n';
  });
  return `${out}${indent},\n`;
}

function nullableType(schema: unknown, indent: string): string {
  const type = jsonSchemaToTypescript(schema, indent);
  return isRecord(schema) && schema.nullable === true && !type.includes('null') ? `${type} | null` : type;
}

/** harmony's default comments: `"text"` for a free string, bare for an enum's string, JSON otherwise. */
function defaultText(value: unknown, schema: Record<string, unknown>, bareEnumString: boolean): string {
  const isEnum = Array.isArray(schema.enum) && schema.enum.length > 0;
  if (typeof value === 'string' && !isEnum) return `"${value}"`;
  if (typeof value === 'string' && bareEnumString) return value;
  return JSON.stringify(value) ?? 'null';
}

/** Rust's `str::lines()`: split on "\n", drop a "\r" before it, no empty last line. */
function rustLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
