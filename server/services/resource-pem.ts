/**
 * What registered certificates, keys and CAs really are (Axebow §5.10): a
 * body between PEM markers is read with node:crypto, not trusted for its
 * markers. A certificate resource's chain must parse, its key must be a
 * private key that belongs to the chain's first certificate, and that
 * certificate must be for the resource's domain; a CA resource must hold
 * certificates that are CAs (basicConstraints CA:TRUE). Problems are
 * returned with the field they are about, for the caller to name in its 400.
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';

export interface PemProblem {
  /** The field of the resource's data: `cert`, `key`, `domain`, or '' for a CA's whole data. */
  field: string;
  message: string;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** The PEM blocks of a text; null when anything but whitespace lies outside them. */
function blocks(text: string): { label: string; text: string }[] | null {
  const out: { label: string; text: string }[] = [];
  let rest = '';
  let at = 0;
  for (const m of text.matchAll(BLOCK)) {
    rest += text.slice(at, m.index);
    out.push({ label: m[1]!, text: m[0] });
    at = m.index + m[0].length;
  }
  rest += text.slice(at);
  return rest.trim() === '' ? out : null;
}

const why = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/, '').trim();

/** The certificates of a PEM text, in order; a problem when one does not parse. */
function certificates(text: string, field: string): X509Certificate[] | PemProblem {
  const found = blocks(text);
  if (found === null) return { field, message: 'must hold only PEM certificate blocks (there is text outside -----BEGIN/END CERTIFICATE-----)' };
  if (found.length === 0) return { field, message: 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)' };
  const out: X509Certificate[] = [];
  for (const [i, b] of found.entries()) {
    const which = found.length > 1 ? `block ${i + 1} ` : '';
    if (b.label !== 'CERTIFICATE') return { field, message: `${which}is a ${b.label}, not a CERTIFICATE` };
    try {
      out.push(new X509Certificate(b.text));
    } catch (e) {
      return { field, message: `${which}is not a certificate that can be read (${why(e)})` };
    }
  }
  return out;
}

function privateKey(text: string, field: string): KeyObject | PemProblem {
  const found = blocks(text);
  if (found === null || found.length !== 1) return { field, message: 'must be one PEM private key (-----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----)' };
  const label = found[0]!.label;
  if (label === 'ENCRYPTED PRIVATE KEY') return { field, message: 'is encrypted: register the key without a passphrase (it is stored sealed)' };
  if (!/PRIVATE KEY$/.test(label)) return { field, message: `is a ${label}, not a PRIVATE KEY` };
  try {
    return createPrivateKey(found[0]!.text);
  } catch (e) {
    return { field, message: `is not a private key that can be read (${why(e)})` };
  }
}

const isProblem = (x: unknown): x is PemProblem => !!x && typeof x === 'object' && 'field' in x && 'message' in x;

/** A certificate resource: its chain, its key (which must be the first certificate's) and its domain. */
export function checkCertificate(data: { cert: string; key: string; domain: string }): PemProblem | null {
  const chain = certificates(data.cert, 'cert');
  if (isProblem(chain)) return chain;
  const key = privateKey(data.key, 'key');
  if (isProblem(key)) return key;
  const leaf = chain[0]!;
  if (!leaf.checkPrivateKey(key)) return { field: 'key', message: `is not the private key of the certificate (${leaf.subject.replace(/\n/g, ', ')})` };
  if (leaf.checkHost(data.domain) === undefined) {
    return { field: 'domain', message: `${data.domain} is not a name the certificate is for (${leaf.subjectAltName ?? leaf.subject.replace(/\n/g, ', ')})` };
  }
  return null;
}

/** A CA resource: certificates that are certificate authorities. */
export function checkCa(text: string, field: string): PemProblem | null {
  const chain = certificates(text, field);
  if (isProblem(chain)) return chain;
  for (const [i, c] of chain.entries()) {
    if (!c.ca) return { field, message: `${chain.length > 1 ? `certificate ${i + 1} ` : ''}is not a CA: its basicConstraints do not say CA:TRUE (${c.subject.replace(/\n/g, ', ')})` };
  }
  return null;
}
