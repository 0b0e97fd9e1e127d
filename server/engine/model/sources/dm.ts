/**
 * Helm's Deployment Manager: configurations are `{imports?, resources:
 * [{name, type, properties?}]}` with no kind at all. Its kinds (template,
 * deployment) arrive with its expand stage; until then a configuration is
 * recognised and named instead of failing as an object without a kind.
 */
import { defineSource } from './types';

function isConfiguration(doc: Readonly<Record<string, unknown>>): boolean {
  return doc.kind === undefined && doc.apiVersion === undefined && Array.isArray(doc.resources);
}

export const DM = defineSource({
  name: 'dm',
  title: 'Deployment Manager',
  recognises: isConfiguration,
  identify: () => ({ kind: 'configuration' }),
  kinds: {},
  unsupported: 'Deployment Manager configurations are not loaded yet',
});
