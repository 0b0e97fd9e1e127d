/**
 * Gardener Landscaper: `apiVersion: landscaper.gardener.cloud/v1alpha1`
 * with `kind` and Kubernetes `metadata.{namespace, name}`. Its kinds
 * (Installation, Blueprint, DataObject, Target, Context) arrive with its
 * install stage; until then its documents are recognised and named.
 */
import { defineSource, metadataIdentity } from './types';

export const LANDSCAPER = defineSource({
  name: 'landscaper',
  title: 'Gardener Landscaper',
  recognises: (doc) => typeof doc.apiVersion === 'string' && doc.apiVersion.startsWith('landscaper.gardener.cloud/'),
  identify: metadataIdentity,
  kinds: {},
  unsupported: 'Landscaper installations are not loaded yet',
});
