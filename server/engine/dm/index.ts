/**
 * The Deployment Manager (expandybird) expansion engine (reference/dm.md):
 * a configuration and its imports in, the flat configuration of primitives
 * and the layout out. Pure: plain data in, plain data out; mistakes in the
 * input come back in `errors`, never as exceptions.
 *
 *   const { config, layout, references, errors } = expand({ config: text, imports: { 'redis.jinja': src } });
 *
 * Jinja templates render through nunjucks; Python templates need a runner
 * (`options.runPython`, the WASM sandbox) and otherwise fail with
 * "Python templates are not supported yet".
 */
import { expandConfiguration } from './expand';
import type { ExpandInput, ExpandOptions, ExpandResult } from './types';

export { DEFAULT_LIMITS, PYTHON_UNSUPPORTED } from './expand';
export { parseConfig, parseYaml, normalizeImports, languageOf, type ParsedConfig, type TemplateLanguage } from './config';
export { validateProperties, pyRepr, type SchemaOutcome, type SchemaOptions } from './schema';
export { findReferences, hasReference, collectReferences, substituteReferences, extractWithJsonPath, type Reference } from './references';
export * from './types';

/**
 * Expands `input.config` against `input.imports`. Schemas are validated and
 * their defaults applied unless `validateSchema: false`; PR 167 outputs are
 * resolved unless `outputs: false`.
 */
export function expand(input: ExpandInput, options: ExpandOptions = {}): ExpandResult {
  return expandConfiguration(input, options);
}
