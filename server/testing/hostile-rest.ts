/**
 * The hostile corpus as an API client sends it: policies that try to stall
 * or blow up the engine (carried inline in Axebow bundles, so the whole
 * pipeline — zip, YAML, validation, placement, resolution, preview — runs
 * on them), bodies that try to stall or crash the HTTP layer, and selector
 * rules a tenant must never accept. Every one must be answered (never a
 * 5xx, never a dropped connection) and must change nothing: bundles go as
 * dry runs, and rules that would be accepted are not hostile.
 *
 * Used by the load test (server/reliability/load.test.ts), which replays
 * them between ordinary reads and writes, and by the test beside it.
 */
import { deflateRawSync } from 'node:zlib';
import { writeZip } from '../loader/zip';
import { MAX_BODY_BYTES } from '../api/http-limits';
import { API_PREFIX } from '../rest/dispatch';
import { aliasBomb, fanOut, offering as offeringIn } from './hostile-languages';

const offering = (name: string, params: string, criteria = '') => offeringIn('acme-web', name, params, criteria);

export interface HostileAnswer {
  status: number;
  message: string;
}

export interface HostileRequest {
  name: string;
  /** Acceptable statuses: a refusal, or (dry runs) an answer whose claims end in errors. */
  expect: readonly number[];
  /**
   * The request as bytes, built ahead of sending: zipping a bundle or
   * writing a megabyte body takes milliseconds, and a load generator that
   * did it between requests delayed the timing of those around it.
   */
  prepare(user: string, n: number): Promise<PreparedRequest>;
  /** Prepare and send with fetch. */
  send(base: string, user: string, n: number): Promise<HostileAnswer>;
}

export interface PreparedRequest {
  method: string;
  /** Under API_PREFIX. */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
}

/** A prepared request sent with fetch, its answer read. */
export async function sendPrepared(base: string, r: PreparedRequest): Promise<HostileAnswer> {
  const res = await fetch(`${base}${API_PREFIX}${r.path}`, { method: r.method, headers: r.headers, ...(r.body ? { body: r.body } : {}) });
  return readAnswer(res.status, await res.text());
}

const zip = (files: Record<string, string>) =>
  writeZip(
    Object.entries(files).map(([path, text]) => ({ path, bytes: new TextEncoder().encode(text) })),
    (b) => deflateRawSync(b),
  );

/** The status and the refusal's message from an answer's text. */
export function readAnswer(status: number, text: string): HostileAnswer {
  let message = text.slice(0, 300);
  try {
    const body = JSON.parse(text) as { content?: { message?: string } };
    message = body.content?.message ?? message;
  } catch {
    // Not JSON: the status says enough.
  }
  return { status, message };
}

/** A dry-run create of service `name` from a bundle carrying `objects` inline (namespace acme-web). */
function bundleDryRun(objects: (name: string) => string, labels = 'tier: gold') {
  return async (user: string, n: number): Promise<PreparedRequest> => {
    const name = `hostile-${n}`;
    const claim = `kind: claim\nmetadata: {namespace: acme-web, name: ${name}}\nuser: ${user}\nservice: hs-${name}\nlabels: {${labels}}\n`;
    const form = new FormData();
    const bytes = zip({ 'deployment/main.yaml': claim, 'lib/offer.yaml': objects(name) });
    form.set('bundle', new Blob([Uint8Array.from(bytes)], { type: 'application/zip' }), 'bundle.zip');
    form.set('spec', JSON.stringify({ environment: 'main/prod' }));
    // The multipart body and its boundary, as fetch would send them.
    const encoded = new Request('http://x/', { method: 'POST', body: form });
    return {
      method: 'POST',
      path: `/tenant/acme/service/${name}?dryrun=true`,
      headers: { authorization: `Bearer test:${user}`, 'content-type': encoded.headers.get('content-type')! },
      body: new Uint8Array(await encoded.arrayBuffer()),
    };
  };
}

function raw(method: string, path: string, body: string | undefined, type?: string) {
  return async (user: string): Promise<PreparedRequest> => ({
    method,
    path,
    headers: { authorization: `Bearer test:${user}`, ...(type ? { 'content-type': type } : {}) },
    ...(body !== undefined ? { body: new TextEncoder().encode(body) } : {}),
  });
}

export const HOSTILE_REQUESTS: readonly HostileRequest[] = (
  [
    { name: 'printf widths in nested ranges (bundle)', expect: [200, 400], prepare: bundleDryRun((n) => offering(n, `a: '{{ range $i, $x := .Labels }}{{ range $j, $y := $.Labels }}{{ printf "%0900000d" 1 }}{{ end }}{{ end }}'`)) },
    { name: '2^30 fan-out through services (bundle)', expect: [200, 400], prepare: bundleDryRun((n) => fanOut('acme-web', n, 30)) },
    { name: 'a NUL in rendered output (bundle)', expect: [200, 400], prepare: bundleDryRun((n) => offering(n, `a: '{{ printf "%c" 0 }}'`)) },
    {
      name: 'catastrophic =~ on a long label (bundle)',
      expect: [200, 400],
      prepare: bundleDryRun((n) => offering(n, 'a: b', `criteria: {require-all: ["long =~ '(a+)+$'"]}, `), `tier: gold, long: '${'a'.repeat(20_000)}!'`),
    },
    { name: 'a YAML alias bomb (bundle)', expect: [400], prepare: bundleDryRun(() => aliasBomb()) },
    { name: '100,000 nested JSON arrays', expect: [400], prepare: raw('POST', '/tenant/acme/service/deep?dryrun=true', '['.repeat(100_000) + ']'.repeat(100_000), 'application/json') },
    { name: 'a body over the limit', expect: [413], prepare: raw('POST', '/tenant/acme/service/big?dryrun=true', JSON.stringify({ service: 'x', labels: { a: 'b'.repeat(MAX_BODY_BYTES + 1) } }), 'application/json') },
    { name: 'a body of the wrong type', expect: [415], prepare: raw('POST', '/tenant/acme/service/typed?dryrun=true', '<xml/>', 'application/xml') },
    { name: 'broken percent-encoding in the path', expect: [400], prepare: raw('GET', '/tenant/acme/service/%E0%A4%A', undefined) },
    {
      name: 'a selector rule that underflows its stack',
      expect: [400],
      prepare: raw('PATCH', '/tenant/acme', JSON.stringify({ rules: { selectEnvironmentService: [{ reason: 'hostile', sel: ['::and'] }] } }), 'application/json'),
    },
    {
      name: 'a selector rule 100,000 operators long',
      expect: [400],
      prepare: raw('PATCH', '/tenant/acme', JSON.stringify({ rules: { selectEnvironmentService: [{ reason: 'hostile', sel: Array.from({ length: 100_000 }, () => true) }] } }), 'application/json'),
    },
    { name: 'ten thousand labels', expect: [400], prepare: raw('POST', '/tenant/acme/service/labels?dryrun=true', JSON.stringify({ service: 'acme-web/webshop', environment: 'main/prod', labels: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`l${i}`, 'v'])) }), 'application/json') },
  ] as Omit<HostileRequest, 'send'>[]
).map((r) => ({ ...r, send: async (base: string, user: string, n: number) => sendPrepared(base, await r.prepare(user, n)) }));
