/**
 * Capact: OCF manifests (`ocfVersion`, `kind: Interface | Implementation |
 * Type | Attribute…`, `metadata.prefix` + `metadata.name`) and its
 * `core.capact.io` resources. Its kinds arrive with its select stage; until
 * then its documents are recognised and named.
 */
import { defineSource, type Identity } from './types';

function ocfIdentity(doc: Readonly<Record<string, unknown>>): Identity {
  const md = (doc.metadata ?? {}) as Record<string, unknown>;
  const prefix = typeof md.prefix === 'string' ? md.prefix : undefined;
  const name = typeof md.name === 'string' ? md.name : undefined;
  return {
    kind: typeof doc.kind === 'string' ? doc.kind : undefined,
    // An OCF manifest is named by its path (`prefix.name`); it has no namespace of its own.
    namespace: typeof md.namespace === 'string' ? md.namespace : undefined,
    name: prefix && name ? `${prefix}.${name}` : name,
  };
}

export const CAPACT = defineSource({
  name: 'capact',
  title: 'Capact',
  recognises: (doc) => doc.ocfVersion !== undefined || (typeof doc.apiVersion === 'string' && doc.apiVersion.startsWith('core.capact.io/')),
  identify: ocfIdentity,
  kinds: {},
  unsupported: 'Capact manifests and policies are not loaded yet',
});
