/**
 * A small JSON Schema (draft-07 subset) validator for additional
 * parameters. Keelson has no validator dependency, and the schemas a Hub
 * Type carries use a handful of keywords. Messages are gojsonschema's, as
 * Capact prints them: `<field>: <description>`, `(root)` for the top
 * (`key: Invalid type. Expected: boolean, given: string`).
 *
 * Supported: type, properties, required, additionalProperties,
 * patternProperties, items (one schema or a tuple), enum, const, minimum,
 * maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minLength,
 * maxLength, pattern, minItems, maxItems, uniqueItems, minProperties,
 * maxProperties, allOf, anyOf, oneOf, not, and local `$ref`s
 * (`#/definitions/...`). Annotations (title, default, examples, $id,
 * format…) are ignored.
 */
import { compileRe2 } from '../lang/re2';
import { isRecord } from '../lang/data';

/**
 * RE2's work budget for one `pattern` match (input length × program size):
 * a value is user input, and RE2, linear as it is, would still take seconds
 * on a megabyte against a large pattern.
 */
const PATTERN_WORK = 20_000_000;

type Schema = Record<string, unknown> | boolean;

/** How deep `$ref`s and nesting may go before the schema is treated as hostile. */
const MAX_DEPTH = 64;

export function validateJsonSchema(schema: unknown, value: unknown): string[] {
  const errors: string[] = [];
  check(schema as Schema, value, [], schema as Schema, errors, 0);
  return errors;
}

function fieldName(path: readonly (string | number)[]): string {
  return path.length === 0 ? '(root)' : path.join('.');
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(expected: string, v: unknown): boolean {
  const t = jsonType(v);
  return expected === t || (expected === 'number' && t === 'integer');
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => jsonEqual(x, (b as unknown[])[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node as Schema | undefined;
}

function check(schema: Schema, value: unknown, path: (string | number)[], root: Schema, errors: string[], depth: number): void {
  const report = (desc: string): void => {
    errors.push(`${fieldName(path)}: ${desc}`);
  };
  if (depth > MAX_DEPTH) return report('schema nests too deeply');
  if (schema === true || schema === undefined || schema === null) return;
  if (schema === false) return report('False always fails validation');
  if (typeof schema !== 'object') return;
  const s = schema;

  if (typeof s.$ref === 'string') {
    const target = resolveRef(root, s.$ref);
    if (target === undefined) return report(`cannot resolve $ref ${s.$ref}`);
    return check(target, value, path, root, errors, depth + 1);
  }

  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => typeMatches(t, value))) {
      report(`Invalid type. Expected: ${types.join(',')}, given: ${jsonType(value)}`);
      return; // gojsonschema stops at a type mismatch
    }
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => jsonEqual(e, value))) {
    report(`${fieldName(path)} must be one of the following: ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if ('const' in s && !jsonEqual(s.const, value)) report(`${fieldName(path)} does not match: ${JSON.stringify(s.const)}`);

  const sub = (k: string) => s[k] as Schema;
  if (Array.isArray(s.allOf) && s.allOf.some((x) => validateAt(x as Schema, value, path, root, depth).length > 0)) {
    for (const x of s.allOf) errors.push(...validateAt(x as Schema, value, path, root, depth));
    report('Must validate all the schemas (allOf)');
  }
  if (Array.isArray(s.anyOf) && !s.anyOf.some((x) => validateAt(x as Schema, value, path, root, depth).length === 0)) {
    report('Must validate at least one schema (anyOf)');
  }
  if (Array.isArray(s.oneOf) && s.oneOf.filter((x) => validateAt(x as Schema, value, path, root, depth).length === 0).length !== 1) {
    report('Must validate one and only one schema (oneOf)');
  }
  if (s.not !== undefined && validateAt(sub('not'), value, path, root, depth).length === 0) report('Must not validate the schema (not)');

  if (typeof value === 'string') {
    const len = [...value].length;
    if (typeof s.minLength === 'number' && len < s.minLength) report(`String length must be greater than or equal to ${s.minLength}`);
    if (typeof s.maxLength === 'number' && len > s.maxLength) report(`String length must be less than or equal to ${s.maxLength}`);
    if (typeof s.pattern === 'string') {
      const re = compileRe2(s.pattern);
      const matched = re.ok ? re.value.test(value, PATTERN_WORK) : true;
      if (matched === false) report(`Does not match pattern '${s.pattern}'`);
      // A value that cannot be checked is not admitted unchecked.
      if (matched === undefined) report(`Is too long to check against pattern '${s.pattern}'`);
    }
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) report(`Must be greater than or equal to ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) report(`Must be less than or equal to ${s.maximum}`);
    if (typeof s.exclusiveMinimum === 'number' && value <= s.exclusiveMinimum) report(`Must be greater than ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === 'number' && value >= s.exclusiveMaximum) report(`Must be less than ${s.exclusiveMaximum}`);
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && !Number.isInteger(value / s.multipleOf)) report(`Must be a multiple of ${s.multipleOf}`);
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) report(`Array must have at least ${s.minItems} items`);
    if (typeof s.maxItems === 'number' && value.length > s.maxItems) report(`Array must have at most ${s.maxItems} items`);
    if (s.uniqueItems === true) {
      outer: for (let i = 0; i < value.length; i++) {
        for (let j = i + 1; j < value.length; j++) {
          if (jsonEqual(value[i], value[j])) {
            report(`array items[${i},${j}] must be unique`);
            break outer;
          }
        }
      }
    }
    if (Array.isArray(s.items)) s.items.forEach((x, i) => i < value.length && check(x as Schema, value[i], [...path, i], root, errors, depth + 1));
    else if (s.items !== undefined) value.forEach((v, i) => check(sub('items'), v, [...path, i], root, errors, depth + 1));
  }
  if (isRecord(value)) {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (typeof s.minProperties === 'number' && keys.length < s.minProperties) report(`Must have at least ${s.minProperties} properties`);
    if (typeof s.maxProperties === 'number' && keys.length > s.maxProperties) report(`Must have at most ${s.maxProperties} properties`);
    for (const r of Array.isArray(s.required) ? (s.required as string[]) : []) if (!Object.hasOwn(obj, r)) report(`${r} is required`);
    const props = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<string, Schema>;
    const patterns = (typeof s.patternProperties === 'object' && s.patternProperties !== null ? s.patternProperties : {}) as Record<string, Schema>;
    for (const k of keys) {
      let known = false;
      if (Object.hasOwn(props, k)) {
        known = true;
        check(props[k]!, obj[k], [...path, k], root, errors, depth + 1);
      }
      for (const [pattern, ps] of Object.entries(patterns)) {
        const re = compileRe2(pattern);
        if (re.ok && re.value.test(k, PATTERN_WORK)) {
          known = true;
          check(ps, obj[k], [...path, k], root, errors, depth + 1);
        }
      }
      if (!known && s.additionalProperties !== undefined) {
        if (s.additionalProperties === false) report(`Additional property ${k} is not allowed`);
        else check(sub('additionalProperties'), obj[k], [...path, k], root, errors, depth + 1);
      }
    }
  }
}

function validateAt(schema: Schema, value: unknown, path: (string | number)[], root: Schema, depth: number): string[] {
  const errors: string[] = [];
  check(schema, value, path, root, errors, depth + 1);
  return errors;
}
