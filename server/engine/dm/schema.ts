/**
 * DM template schemas (reference/dm.md §3): the Draft-4 subset DM's schemas
 * use, with defaults filled in before validation and every error collected
 * into one message, worded as Python's `jsonschema` worded them (DM users
 * and DM's tests read those sentences; Python 2's `u'...'` prefixes are
 * dropped).
 *
 * The steps are expandybird's: check the schema itself (Draft-4 metaschema
 * and DM's `imports:` shape), check that the schema's imports were supplied,
 * fill in defaults (through `properties`, `items` and `$ref`), then validate.
 */
import { isObject, parseYaml } from './config';
import { isWholeFloat, markWholeFloat } from './pyyaml';
import type { ImportFile, Json, JsonObject } from './types';

export type SchemaOutcome =
  | { ok: true; properties: JsonObject }
  | { ok: false; code: 'schema' | 'properties'; message: string; errors: string[] };

export interface SchemaOptions {
  /** Accept `type: int` as `integer` (DM's shipped schemas use it; Draft 4 does not know it). */
  intAlias?: boolean;
}

const SIMPLE_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];

/**
 * Validates `properties` against the import `schemaName` and returns them with
 * defaults filled in. `templateName` is what the error message names.
 */
export function validateProperties(
  properties: JsonObject | null | undefined,
  schemaName: string,
  templateName: string,
  imports: Map<string, ImportFile>,
  options: SchemaOptions = {},
): SchemaOutcome {
  const intAlias = options.intAlias ?? true;
  const file = imports.get(schemaName);
  if (!file) return propertiesError(templateName, [`Could not find schema file '${schemaName}'.`]);
  const props: JsonObject = properties ? clone(properties) as JsonObject : {};
  const parsed = parseYaml(file.content, schemaName);
  if (!parsed.ok) return schemaError(schemaName, [parsed.message]);
  const schema = parsed.value;
  if (schema === null || schema === undefined || (isObject(schema) && Object.keys(schema).length === 0)) {
    return { ok: true, properties: props };
  }
  if (!isObject(schema)) return schemaError(schemaName, [`${pyRepr(schema)} is not of type 'object'`]);

  const schemaProblems = checkSchema(schema, schema, [], intAlias);
  const importsSection = schema['imports'];
  if (importsSection !== undefined && importsSection !== null && !(Array.isArray(importsSection) && importsSection.length === 0)) {
    schemaProblems.push(...checkImportsSection(importsSection));
  }
  if (schemaProblems.length > 0) return schemaError(schemaName, schemaProblems);

  const problems: string[] = [];
  if (Array.isArray(importsSection)) {
    for (const entry of importsSection) {
      const wanted = isObject(entry) ? (entry['name'] ?? entry['path']) : null;
      if (typeof wanted === 'string' && !imports.has(wanted)) {
        problems.push(`File '${wanted}' requested in schema '${schemaName}' but not included with imports.`);
      }
    }
  }
  const typed = intAlias ? aliasInt(schema) as JsonObject : schema;
  applyDefaults(props, typed, typed);
  validate(props, typed, typed, [], problems, 0, wholeFloatPaths(props));
  if (problems.length > 0) return propertiesError(templateName, problems);
  return { ok: true, properties: props };
}

function schemaError(schemaName: string, errors: string[]): SchemaOutcome {
  return { ok: false, code: 'schema', message: `Invalid schema '${schemaName}':\n${errors.join('\n')}`, errors };
}

function propertiesError(templateName: string, errors: string[]): SchemaOutcome {
  return { ok: false, code: 'properties', message: `Invalid properties for '${templateName}':\n${errors.join('\n')}`, errors };
}

// ------------------------------------------------------------ the schema itself

/** Where a keyword's value is itself a schema (or a map/list of schemas). */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
const NON_NEGATIVE_INTS = ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'];

/** The Draft-4 metaschema, as the checks DM's schemas can fail, with jsonschema's messages. */
function checkSchema(node: Json, root: JsonObject, path: (string | number)[], intAlias: boolean): string[] {
  const out: string[] = [];
  const at = (p: (string | number)[]) => (p.length ? ` at ${pyRepr(p)}` : '');
  if (!isObject(node)) return [`${pyRepr(node)} is not of type 'object'${at(path)}`];
  const known = intAlias ? [...SIMPLE_TYPES, 'int'] : SIMPLE_TYPES;
  if ('type' in node) {
    const t = node['type']!;
    const valid = typeof t === 'string' ? known.includes(t) : Array.isArray(t) && t.length > 0 && t.every((x) => typeof x === 'string' && known.includes(x));
    if (!valid) out.push(`${pyRepr(t)} is not valid under any of the given schemas${at([...path, 'type'])}`);
  }
  for (const key of SCHEMA_MAPS) {
    if (!(key in node)) continue;
    const v = node[key]!;
    if (!isObject(v)) out.push(`${pyRepr(v)} is not of type 'object'${at([...path, key])}`);
    else for (const [k, sub] of Object.entries(v)) out.push(...checkSchema(sub, root, [...path, key, k], intAlias));
  }
  for (const key of SCHEMA_LISTS) {
    if (!(key in node)) continue;
    const v = node[key]!;
    if (!Array.isArray(v)) out.push(`${pyRepr(v)} is not of type 'array'${at([...path, key])}`);
    else if (v.length === 0) out.push(`[] is too short${at([...path, key])}`);
    else v.forEach((sub, i) => out.push(...checkSchema(sub, root, [...path, key, i], intAlias)));
  }
  if ('not' in node) out.push(...checkSchema(node['not']!, root, [...path, 'not'], intAlias));
  for (const key of ['additionalProperties', 'additionalItems']) {
    if (!(key in node)) continue;
    const v = node[key]!;
    if (typeof v !== 'boolean') {
      if (!isObject(v)) out.push(`${pyRepr(v)} is not valid under any of the given schemas${at([...path, key])}`);
      else out.push(...checkSchema(v, root, [...path, key], intAlias));
    }
  }
  if ('items' in node) {
    const v = node['items']!;
    if (Array.isArray(v)) v.forEach((sub, i) => out.push(...checkSchema(sub, root, [...path, 'items', i], intAlias)));
    else if (isObject(v)) out.push(...checkSchema(v, root, [...path, 'items'], intAlias));
    else out.push(`${pyRepr(v)} is not valid under any of the given schemas${at([...path, 'items'])}`);
  }
  if ('required' in node) {
    const v = node['required']!;
    if (!Array.isArray(v)) out.push(`${pyRepr(v)} is not of type 'array'${at([...path, 'required'])}`);
    else if (v.length === 0) out.push(`[] is too short${at([...path, 'required'])}`);
    else v.forEach((x, i) => { if (typeof x !== 'string') out.push(`${pyRepr(x)} is not of type 'string'${at([...path, 'required', i])}`); });
  }
  if ('enum' in node) {
    const v = node['enum']!;
    if (!Array.isArray(v)) out.push(`${pyRepr(v)} is not of type 'array'${at([...path, 'enum'])}`);
    else if (v.length === 0) out.push(`[] is too short${at([...path, 'enum'])}`);
  }
  for (const key of ['minimum', 'maximum', 'multipleOf']) {
    if (key in node && typeof node[key] !== 'number') out.push(`${pyRepr(node[key]!)} is not of type 'number'${at([...path, key])}`);
  }
  if (typeof node['multipleOf'] === 'number' && node['multipleOf'] <= 0) {
    out.push(`${pyRepr(node['multipleOf'])} is less than or equal to the minimum of 0${at([...path, 'multipleOf'])}`);
  }
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (!(flag in node)) continue;
    if (!(bound in node)) out.push(`'${bound}' is a dependency of '${flag}'${at(path)}`);
    if (typeof node[flag] !== 'boolean') out.push(`${pyRepr(node[flag]!)} is not of type 'boolean'${at([...path, flag])}`);
  }
  for (const key of NON_NEGATIVE_INTS) {
    if (!(key in node)) continue;
    const v = node[key]!;
    if (typeof v !== 'number' || !Number.isInteger(v)) out.push(`${pyRepr(v)} is not of type 'integer'${at([...path, key])}`);
    else if (v < 0) out.push(`${v} is less than the minimum of 0${at([...path, key])}`);
  }
  if ('uniqueItems' in node && typeof node['uniqueItems'] !== 'boolean') out.push(`${pyRepr(node['uniqueItems']!)} is not of type 'boolean'${at([...path, 'uniqueItems'])}`);
  if ('pattern' in node) {
    const p = node['pattern']!;
    if (typeof p !== 'string') out.push(`${pyRepr(p)} is not of type 'string'${at([...path, 'pattern'])}`);
    else if (compilePattern(p) === null) out.push(`${pyRepr(p)} is not a 'regex'${at([...path, 'pattern'])}`);
  }
  if ('$ref' in node) {
    const ref = node['$ref']!;
    if (typeof ref !== 'string') {
      // An unquoted `$ref: #/x` is a YAML comment, so the value is null.
      out.push(`${pyRepr(ref)} is not of type 'string'${at([...path, '$ref'])}`);
      out.push(`Unresolvable reference ${pyRepr(ref)}${at([...path, '$ref'])}: argument of type 'NoneType' is not iterable. Perhaps you forgot to put 'quotes' around your reference.`);
    } else if (resolveRef(root, ref) === undefined) {
      out.push(`Unresolvable JSON pointer: ${pyRepr(ref.replace(/^#\/?/, ''))}${at([...path, '$ref'])}`);
    }
  }
  return out;
}

/** DM's IMPORT_SCHEMA: a list of unique `{path, name?}` objects and nothing else. */
function checkImportsSection(section: Json): string[] {
  if (!Array.isArray(section)) return [`${pyRepr(section)} is not of type 'array' at ['imports']`];
  const out: string[] = [];
  section.forEach((entry, i) => {
    const at = ` at ['imports', ${i}]`;
    if (!isObject(entry)) { out.push(`${pyRepr(entry)} is not of type 'object'${at}`); return; }
    if (!('path' in entry)) out.push(`'path' is a required property${at}`);
    for (const key of ['path', 'name']) {
      if (key in entry && typeof entry[key] !== 'string') out.push(`${pyRepr(entry[key]!)} is not of type 'string' at ['imports', ${i}, '${key}']`);
    }
    const extra = Object.keys(entry).filter((k) => k !== 'path' && k !== 'name');
    if (extra.length) out.push(`Additional properties are not allowed (${extra.map((k) => pyRepr(k)).join(', ')} ${extra.length === 1 ? 'was' : 'were'} unexpected)${at}`);
  });
  if (!uniqueItems(section)) out.push(`${pyRepr(section)} has non-unique elements at ['imports']`);
  return out;
}

/** Resolves a local `$ref` (`#`, `#/a/b`, with `~0`/`~1` and %-escapes); undefined when it does not resolve. */
function resolveRef(root: JsonObject, ref: string): Json | undefined {
  if (!ref.startsWith('#')) return undefined;
  const pointer = decodeURIComponent(ref.slice(1));
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: Json | undefined = root;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(part)) node = node[Number(part)];
    else if (isObject(node) && Object.hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return node;
}

/** `type: int` → `type: integer` everywhere, so the validator knows one name. */
function aliasInt(node: Json): Json {
  if (Array.isArray(node)) return node.map(aliasInt);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' && v === 'int') out[k] = 'integer';
    else if (k === 'type' && Array.isArray(v)) out[k] = v.map((t) => (t === 'int' ? 'integer' : t));
    else if (k === 'default' || k === 'enum') out[k] = v;
    else out[k] = aliasInt(v);
  }
  return out;
}

// ------------------------------------------------------------ defaults

/**
 * DM's defaulting validator (schema_validation_utils.ExtendWithDefault): a
 * Draft-4 validator whose `properties` keyword first sets, for each declared
 * property the instance lacks, the property's default (a `$ref`'s target
 * default wins over a sibling `default`), then descends; and whose `required`
 * does nothing. DM ran it over the properties to the end, for its side
 * effect, so a default applies wherever that validator reaches a
 * `properties`: through `items`, `patternProperties`, `additionalProperties`,
 * schema `dependencies`, every `allOf` branch, `anyOf` and `oneOf` branches
 * as jsonschema tries them. Where jsonschema only asks whether a schema holds
 * (`not`, the `oneOf` branches after the first that holds) it stops at the
 * first error, so defaults after it in the schema's key order are not set.
 * The first default set wins; a value the user gave, even null, is kept.
 *
 * Two places where DM did worse are left out on purpose (README, "Where
 * Keelson differs from DM"): a `$ref` whose target has no default sets
 * nothing here (DM set null), and a default is copied, so properties that
 * share one YAML node through an alias do not receive each other's defaults.
 */
function applyDefaults(instance: Json, schema: Json, root: JsonObject): void {
  for (const _ of defaultingErrors(instance, schema, root, false, 0));
}

/** Whether a schema holds as DM's defaulting validator judged it: stops at the first error, defaults set up to there. */
function holdsWhileDefaulting(instance: Json, schema: Json, root: JsonObject, wholeFloat: boolean, depth: number): boolean {
  return defaultingErrors(instance, schema, root, wholeFloat, depth).next().done === true;
}

/**
 * The defaulting validator's errors, one `true` each, in jsonschema's order
 * (the schema's keys), lazily: a caller that stops at the first error leaves
 * the rest of the schema unvisited, as jsonschema's `is_valid` did.
 * `wholeFloat`: the instance is a float with a whole value (not an integer in Python).
 */
function* defaultingErrors(instance: Json, schema: Json, root: JsonObject, wholeFloat: boolean, depth: number): Generator<true> {
  if (!isObject(schema) || depth > 64) return;
  const descend = (value: Json, sub: Json, container?: object, key?: string | number) =>
    defaultingErrors(value, sub, root, container !== undefined && key !== undefined && isWholeFloat(container, key), depth + 1);
  if (typeof schema['$ref'] === 'string') {
    // Draft 4: `$ref` replaces its siblings.
    const target = resolveRef(root, schema['$ref']);
    if (target !== undefined) yield* defaultingErrors(instance, target, root, wholeFloat, depth + 1);
    return;
  }
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  const patterns = isObject(schema['patternProperties']) ? schema['patternProperties'] : {};
  for (const [keyword, value] of Object.entries(schema)) {
    switch (keyword) {
      case 'properties':
        // Sets the defaults, then descends to the end; reports nothing.
        if (!isObject(instance)) break;
        for (const [key, sub] of Object.entries(props)) {
          if (!isObject(sub) || Object.hasOwn(instance, key)) continue;
          const target = typeof sub['$ref'] === 'string' ? resolveRef(root, sub['$ref']) : sub;
          if (isObject(target) && Object.hasOwn(target, 'default')) instance[key] = clone(target['default']!);
        }
        for (const [key, sub] of Object.entries(props)) {
          if (Object.hasOwn(instance, key)) for (const _ of descend(instance[key]!, sub, instance, key));
        }
        break;
      case 'patternProperties':
        if (!isObject(instance)) break;
        for (const [pattern, sub] of Object.entries(patterns)) {
          const re = compilePattern(pattern);
          for (const key of Object.keys(instance)) if (re?.test(key)) yield* descend(instance[key]!, sub, instance, key);
        }
        break;
      case 'additionalProperties': {
        if (!isObject(instance)) break;
        const extra = Object.keys(instance).filter((key) => !Object.hasOwn(props, key) && !Object.keys(patterns).some((p) => compilePattern(p)?.test(key)));
        if (isObject(value)) for (const key of extra) yield* descend(instance[key]!, value, instance, key);
        else if (value === false && extra.length) yield true;
        break;
      }
      case 'items':
        if (!Array.isArray(instance)) break;
        if (isObject(value)) for (const [i, item] of instance.entries()) yield* descend(item, value, instance, i);
        else if (Array.isArray(value)) for (const [i, item] of instance.entries()) if (i < value.length) yield* descend(item, value[i]!, instance, i);
        break;
      case 'additionalItems': {
        const items = schema['items'];
        if (!Array.isArray(instance) || !Array.isArray(items)) break;
        if (isObject(value)) for (let i = items.length; i < instance.length; i++) yield* descend(instance[i]!, value, instance, i);
        else if (value === false && instance.length > items.length) yield true;
        break;
      }
      case 'dependencies':
        if (!isObject(instance) || !isObject(value)) break;
        for (const [key, dep] of Object.entries(value)) {
          if (!Object.hasOwn(instance, key)) continue;
          if (Array.isArray(dep)) { for (const d of dep) if (typeof d === 'string' && !Object.hasOwn(instance, d)) yield true; }
          else yield* defaultingErrors(instance, dep, root, wholeFloat, depth + 1);
        }
        break;
      case 'allOf':
        if (Array.isArray(value)) for (const sub of value) yield* defaultingErrors(instance, sub, root, wholeFloat, depth + 1);
        break;
      case 'anyOf':
        // Each branch to its end, up to the first that holds.
        if (!Array.isArray(value)) break;
        if (!value.some((sub) => [...defaultingErrors(instance, sub, root, wholeFloat, depth + 1)].length === 0)) yield true;
        break;
      case 'oneOf': {
        // To the first branch that holds, each to its end; then whether any other holds, each up to its first error.
        if (!Array.isArray(value)) break;
        const first = value.findIndex((sub) => [...defaultingErrors(instance, sub, root, wholeFloat, depth + 1)].length === 0);
        if (first < 0) yield true;
        else if (value.slice(first + 1).filter((sub) => holdsWhileDefaulting(instance, sub, root, wholeFloat, depth + 1)).length > 0) yield true;
        break;
      }
      case 'not':
        if (holdsWhileDefaulting(instance, value, root, wholeFloat, depth + 1)) yield true;
        break;
      case 'required':
        // The defaulting validator ignores `required`.
        break;
      default: {
        // A keyword that only judges the value (type, enum, bounds, lengths, pattern…).
        const errors: string[] = [];
        validate(instance, { [keyword]: value, ...siblingsReadBy(keyword, schema) }, root, [], errors, depth + 1, wholeFloat ? new Set(['[]']) : NO_FLOATS);
        if (errors.length) yield true;
      }
    }
  }
}

/** The sibling keywords a Draft-4 keyword reads (`minimum` reads `exclusiveMinimum`). */
function siblingsReadBy(keyword: string, schema: JsonObject): JsonObject {
  const reads: Record<string, string> = { minimum: 'exclusiveMinimum', maximum: 'exclusiveMaximum' };
  const sibling = reads[keyword];
  return sibling !== undefined && Object.hasOwn(schema, sibling) ? { [sibling]: schema[sibling]! } : {};
}

// ------------------------------------------------------------ validation

const NO_FLOATS: ReadonlySet<string> = new Set();

/** Where the properties hold a whole float (`10.0`), as paths (see pyyaml.ts isWholeFloat). */
function wholeFloatPaths(value: Json, path: (string | number)[] = [], out = new Set<string>()): Set<string> {
  const entries: [string | number, Json][] = Array.isArray(value) ? value.map((x, i) => [i, x]) : isObject(value) ? Object.entries(value) : [];
  for (const [k, x] of entries) {
    if (isWholeFloat(value as object, k)) out.add(JSON.stringify([...path, k]));
    else wholeFloatPaths(x, [...path, k], out);
  }
  return out;
}

function typeMatches(value: Json, type: string, wholeFloat = false): boolean {
  switch (type) {
    case 'array': return Array.isArray(value);
    case 'boolean': return typeof value === 'boolean';
    case 'integer': return typeof value === 'number' && Number.isInteger(value) && !wholeFloat;
    case 'number': return typeof value === 'number';
    case 'null': return value === null;
    case 'object': return isObject(value);
    case 'string': return typeof value === 'string';
    default: return true;
  }
}

/**
 * Draft-4 validation collecting every error as `<message> at <path>`. Values
 * holding a `$(ref.` are not judged (PR 167): they are known only at deploy time.
 * `floats`: the paths (as JSON text) of whole floats (`10.0`), which are no integers in Python.
 */
function validate(value: Json, schema: Json, root: JsonObject, path: (string | number)[], out: string[], depth = 0, floats: ReadonlySet<string> = NO_FLOATS): void {
  if (!isObject(schema)) return;
  if (depth > 64) { out.push(`Schema nesting deeper than 64 levels${fmtPath(path)}`); return; }
  const push = (message: string) => {
    if (typeof value === 'string' && value.includes('$(ref.')) return;
    out.push(`${message}${fmtPath(path)}`);
  };
  if (typeof schema['$ref'] === 'string') {
    // Draft 4: `$ref` replaces its siblings.
    const target = resolveRef(root, schema['$ref']);
    if (target !== undefined) validate(value, target, root, path, out, depth + 1, floats);
    return;
  }
  const type = schema['type'];
  if (type !== undefined) {
    const types = Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : typeof type === 'string' ? [type] : [];
    const wholeFloat = floats.has(JSON.stringify(path));
    if (types.length && !types.some((t) => typeMatches(value, t, wholeFloat))) {
      push(`${wholeFloat ? `${value}.0` : pyRepr(value)} is not of type ${types.map((t) => pyRepr(t)).join(', ')}`);
    }
  }
  const enumValues = schema['enum'];
  if (Array.isArray(enumValues) && !enumValues.some((e) => jsonEqual(e, value))) push(`${pyRepr(value)} is not one of ${pyRepr(enumValues)}`);

  if (isObject(value)) {
    const required = schema['required'];
    if (Array.isArray(required)) for (const r of required) if (typeof r === 'string' && !Object.hasOwn(value, r)) push(`${pyRepr(r)} is a required property`);
    const props = isObject(schema['properties']) ? schema['properties'] : {};
    const patterns = isObject(schema['patternProperties']) ? schema['patternProperties'] : {};
    for (const [key, sub] of Object.entries(props)) {
      if (Object.hasOwn(value, key)) validate(value[key]!, sub, root, [...path, key], out, depth + 1, floats);
    }
    const extra: string[] = [];
    for (const key of Object.keys(value)) {
      let matched = Object.hasOwn(props, key);
      for (const [pattern, sub] of Object.entries(patterns)) {
        if (compilePattern(pattern)?.test(key)) { matched = true; validate(value[key]!, sub, root, [...path, key], out, depth + 1, floats); }
      }
      if (!matched) extra.push(key);
    }
    const additional = schema['additionalProperties'];
    if (additional === false && extra.length) {
      push(`Additional properties are not allowed (${extra.map((k) => pyRepr(k)).join(', ')} ${extra.length === 1 ? 'was' : 'were'} unexpected)`);
    } else if (isObject(additional)) {
      for (const key of extra) validate(value[key]!, additional, root, [...path, key], out, depth + 1, floats);
    }
    const n = Object.keys(value).length;
    if (typeof schema['minProperties'] === 'number' && n < schema['minProperties']) push(`${pyRepr(value)} does not have enough properties`);
    if (typeof schema['maxProperties'] === 'number' && n > schema['maxProperties']) push(`${pyRepr(value)} has too many properties`);
    const deps = schema['dependencies'];
    if (isObject(deps)) {
      for (const [key, dep] of Object.entries(deps)) {
        if (!Object.hasOwn(value, key)) continue;
        if (Array.isArray(dep)) { for (const d of dep) if (typeof d === 'string' && !Object.hasOwn(value, d)) push(`${pyRepr(d)} is a dependency of ${pyRepr(key)}`); }
        else validate(value, dep, root, path, out, depth + 1, floats);
      }
    }
  }
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (isObject(items)) value.forEach((item, i) => validate(item, items, root, [...path, i], out, depth + 1, floats));
    else if (Array.isArray(items)) {
      value.forEach((item, i) => {
        if (i < items.length) validate(item, items[i]!, root, [...path, i], out, depth + 1, floats);
        else if (schema['additionalItems'] === false) push(`Additional items are not allowed`);
        else if (isObject(schema['additionalItems'])) validate(item, schema['additionalItems'], root, [...path, i], out, depth + 1, floats);
      });
    }
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems']) push(`${pyRepr(value)} is too short`);
    if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems']) push(`${pyRepr(value)} is too long`);
    if (schema['uniqueItems'] === true && !uniqueItems(value)) push(`${pyRepr(value)} has non-unique elements`);
  }
  if (typeof value === 'number') {
    const { minimum, maximum, multipleOf } = schema;
    if (typeof minimum === 'number') {
      if (schema['exclusiveMinimum'] === true ? value <= minimum : value < minimum) {
        push(`${pyRepr(value)} is less than ${schema['exclusiveMinimum'] === true ? 'or equal to ' : ''}the minimum of ${pyRepr(minimum)}`);
      }
    }
    if (typeof maximum === 'number') {
      if (schema['exclusiveMaximum'] === true ? value >= maximum : value > maximum) {
        push(`${pyRepr(value)} is greater than ${schema['exclusiveMaximum'] === true ? 'or equal to ' : ''}the maximum of ${pyRepr(maximum)}`);
      }
    }
    if (typeof multipleOf === 'number' && multipleOf > 0) {
      const q = value / multipleOf;
      if (Math.abs(q - Math.round(q)) > 1e-9) push(`${pyRepr(value)} is not a multiple of ${pyRepr(multipleOf)}`);
    }
  }
  if (typeof value === 'string') {
    // Length in code points, as Python counts.
    const length = [...value].length;
    if (typeof schema['minLength'] === 'number' && length < schema['minLength']) push(`${pyRepr(value)} is too short`);
    if (typeof schema['maxLength'] === 'number' && length > schema['maxLength']) push(`${pyRepr(value)} is too long`);
    if (typeof schema['pattern'] === 'string') {
      const re = compilePattern(schema['pattern']);
      if (re && !re.test(value)) push(`${pyRepr(value)} does not match ${pyRepr(schema['pattern'])}`);
    }
  }
  const passes = (sub: Json) => { const errs: string[] = []; validate(value, sub, root, path, errs, depth + 1, floats); return errs.length === 0; };
  if ('not' in schema && passes(schema['not']!)) push(`${pyRepr(schema['not']!)} is not allowed for ${pyRepr(value)}`);
  if (Array.isArray(schema['allOf'])) for (const sub of schema['allOf']) validate(value, sub, root, path, out, depth + 1, floats);
  if (Array.isArray(schema['anyOf']) && !schema['anyOf'].some(passes)) push(`${pyRepr(value)} is not valid under any of the given schemas`);
  if (Array.isArray(schema['oneOf'])) {
    const matching = schema['oneOf'].filter(passes).length;
    if (matching === 0) push(`${pyRepr(value)} is not valid under any of the given schemas`);
    else if (matching > 1) push(`${pyRepr(value)} is valid under each of ${pyRepr(schema['oneOf'])}`);
  }
}

/**
 * JSON Schema patterns are ECMA-262 regexes, searched (not anchored), as
 * Python's `re.search` did. An invalid pattern is reported by the schema check.
 */
function compilePattern(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try { return new RegExp(pattern); } catch { return null; }
  }
}

function fmtPath(path: (string | number)[]): string {
  return path.length ? ` at ${pyRepr(path)}` : '';
}

function uniqueItems(list: Json[]): boolean {
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) if (jsonEqual(list[i]!, list[j]!)) return false;
  return true;
}

export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]!));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k]!, b[k]!));
  }
  return false;
}

/** A deep copy that keeps PyYAML's whole floats marked (`10.0` stays a float, see pyyaml.ts). */
export function clone<T extends Json>(v: T): T {
  if (Array.isArray(v)) {
    const out = v.map((x) => clone(x));
    v.forEach((_, i) => { if (isWholeFloat(v, i)) markWholeFloat(out, i); });
    return out as T;
  }
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    // A key named __proto__ is data, not the object's prototype.
    Object.defineProperty(out, k, { value: clone(x), enumerable: true, writable: true, configurable: true });
    if (isWholeFloat(v, k)) markWholeFloat(out, k);
  }
  return out as T;
}

/** Python's `repr` of a YAML value: how jsonschema (and so DM) printed values in messages. */
export function pyRepr(v: Json | undefined): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : String(v);
  if (typeof v === 'string') {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(v).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
}
