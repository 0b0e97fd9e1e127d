/**
 * Axebow bundles (§5.9.11) in Keelson: a zip archive whose top-level
 * folders are modules. Kumori writes modules in CUE; Keelson's modules are
 * YAML policy. The `deployment` module holds the deployment: exactly one
 * claim, the service being created. Any module may carry what it needs
 * inline — services, bundles, contracts, clusters — which are written in the
 * same generation as the claim, with the same rights checks as any save.
 *
 * The claim acts for the caller and is named by the request's path, so a
 * claim that names another user or another name is refused rather than
 * silently changed. Files other than YAML are ignored, except that a
 * deployment module of CUE only is refused with a clear word.
 */
import type { Claim } from '../../engine/model/kinds';
import type { Diagnostic } from '../../engine/diagnostics';
import type { AdmittedObject } from '../admission';
import { readZip, ZipError } from '../../loader/zip';
import { AppError } from '../../errors';
import { noPlacementLabels, PLACEMENT_LABELS_MESSAGE, type BundleObjects } from './types';

export interface BundleDeployment {
  /** The offering the claim names (`name` or `namespace/name`). */
  service: string;
  /** The claim's namespace (one of the tenant's). */
  namespace: string;
  labels: Record<string, string>;
  /** The other objects, written with the claim as they were read (none: undefined). */
  objects?: BundleObjects;
  /** Files read, for the answer. */
  files: string[];
}

const DEPLOYMENT_MODULE = 'deployment';

function invalid(message: string, details?: Record<string, unknown>): AppError {
  return new AppError('INVALID_INPUT', `${message} Nothing was saved.`, details ? { details } : {});
}

/**
 * Read a bundle; each YAML file is read through `admit` (rights on its
 * objects first, then their checks: services/admission.ts), which refuses
 * what the caller may not write before anything in it is evaluated.
 */
export async function readBundle(
  bytes: Uint8Array,
  name: string,
  user: string,
  admit: (text: string, file: string) => Promise<{ objects: AdmittedObject[]; diagnostics: Diagnostic[] }>,
): Promise<BundleDeployment> {
  let entries;
  try {
    entries = readZip(bytes);
  } catch (e) {
    if (e instanceof ZipError) throw invalid(`The bundle cannot be read: ${e.message}`, e.entry ? { file: e.entry } : undefined);
    throw e;
  }
  const yamlFiles = entries.filter((e) => /\.ya?ml$/i.test(e.path));
  const inDeployment = (path: string) => path.startsWith(`${DEPLOYMENT_MODULE}/`);
  if (!yamlFiles.some((f) => inDeployment(f.path))) {
    const cue = entries.some((e) => inDeployment(e.path) && e.path.endsWith('.cue'));
    throw invalid(
      cue
        ? 'The bundle’s deployment module is CUE: Keelson reads modules written as YAML policy (deployment/*.yaml holding the claim).'
        : 'The bundle has no deployment module: put the claim in deployment/*.yaml.',
    );
  }
  const claims: { file: string; claim: Claim & { metadata: { name: string; namespace: string } }; line?: number }[] = [];
  const others: AdmittedObject[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const f of yamlFiles) {
    let text: string;
    try {
      text = decoder.decode(f.bytes);
    } catch {
      throw invalid(`${f.path} is not UTF-8 text.`, { file: f.path });
    }
    const { objects, diagnostics } = await admit(text, f.path);
    const error = diagnostics.find((d) => d.severity === 'error');
    if (error) {
      throw new AppError('INVALID_INPUT', `${f.path}${error.line ? `, line ${error.line}` : ''}: ${error.message}${error.object ? ` (${error.object})` : ''}. Nothing was saved.`, {
        diagnostics: diagnostics.map((d) => ({ ...d, file: f.path })),
      });
    }
    for (const o of objects) {
      if (o.kind === 'claim') {
        if (!inDeployment(f.path)) throw invalid(`${f.path}: claim ${o.namespace}/${o.name} is outside the deployment module; a bundle deploys one service, whose claim is in deployment/.`);
        claims.push({ file: f.path, claim: { ...(o.spec as Claim), metadata: { name: o.name, namespace: o.namespace } }, line: o.pos.line });
      } else {
        others.push(o);
      }
    }
  }
  if (claims.length !== 1) {
    throw invalid(`The deployment module must hold exactly one claim (found ${claims.length}${claims.length ? `: ${claims.map((c) => `${c.file}:${c.line}`).join(', ')}` : ''}).`);
  }
  const { file, claim, line } = claims[0]!;
  const at = `${file}, line ${line}`;
  if (claim.metadata.name !== name) throw invalid(`${at}: the claim is named ${claim.metadata.name}, but the service is created as ${name}; name them alike.`);
  if (claim.user.toLowerCase() !== user.toLowerCase()) {
    throw invalid(`${at}: the claim acts for ${claim.user}, but a service acts for who creates it; set "user" to ${user}.`);
  }
  const labels = { ...(claim.labels ?? {}) };
  if (!noPlacementLabels(labels)) throw invalid(`${at}: ${PLACEMENT_LABELS_MESSAGE}`);
  return {
    service: claim.service,
    namespace: claim.metadata.namespace,
    labels,
    ...(others.length ? { objects: { objects: others } } : {}),
    files: yamlFiles.map((f) => f.path),
  };
}
