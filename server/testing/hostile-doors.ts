/**
 * The doors a hostile payload (./hostile-languages.ts) comes through, as
 * HTTP requests a client sends to a console (./console.ts
 * `serveEveryDoorForTests`, bearer `test:<user>`): a save and a preview
 * over tRPC, Capact's Try it with the payload as its draft, an API create
 * of a service from a bundle carrying the payload (a dry run), Deployment
 * Manager's expand, and a tenant's selector rules. Requests are built
 * ahead of sending (a 10 MiB body takes milliseconds to build), then sent.
 */
import { deflateRawSync } from 'node:zlib';
import { writeZip } from '../loader/zip';
import { API_PREFIX } from '../rest/dispatch';
import { DM_PREFIX } from '../rest/dm';
import type { HostilePolicy } from './hostile-languages';

export type Door = 'save' | 'preview' | 'tryIt' | 'create' | 'expand';
export const DOORS: readonly Door[] = ['save', 'preview', 'tryIt', 'create', 'expand'];

export interface Prepared {
  method: string;
  /** From the server's root. */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array<ArrayBuffer>;
}

export interface DoorAnswer {
  status: number;
  /** tRPC's code (FORBIDDEN…) or the REST API's (Forbidden…). */
  code: string;
  message: string;
  /** The tRPC answer's data, or the REST body's. */
  data?: unknown;
}

const encode = (s: string) => new TextEncoder().encode(s);
const auth = (user: string) => ({ authorization: `Bearer test:${user}` });
const json = (user: string) => ({ ...auth(user), 'content-type': 'application/json' });
/** A tRPC call with its input in the body (queries too: the console's route allows the override, as for a preview of a whole object). */
const trpc = (user: string, procedure: string, input: unknown): Prepared => ({ method: 'POST', path: `/api/trpc/${procedure}`, headers: json(user), body: encode(JSON.stringify({ json: input })) });

/** The tenant the API doors create in, and where its namespace is. */
export const HOSTILE_TENANT = { name: 'acme', namespace: 'acme-web' };

export async function prepareDoor(door: Door, p: HostilePolicy, opts: { user: string; n: number; baseGeneration: number }): Promise<Prepared> {
  const { user, n } = opts;
  const name = `hostile-${n}`;
  const text = p.text(HOSTILE_TENANT.namespace, user, name);
  switch (door) {
    case 'save':
      return trpc(user, 'policy.applyText', { text, baseGeneration: opts.baseGeneration });
    case 'preview':
      return trpc(user, 'revisions.preview', { text });
    case 'tryIt':
      return trpc(user, 'capact.tryIt', { interface: { path: 'cap.interface.database.postgresql.install' }, draft: text });
    case 'expand': {
      const t = p.template ?? { content: text, imports: [] };
      return { method: 'POST', path: `${DM_PREFIX}/expand`, headers: json(user), body: encode(JSON.stringify({ name, ...t })) };
    }
    case 'create': {
      const claim = `kind: claim\nmetadata: {namespace: ${HOSTILE_TENANT.namespace}, name: ${name}}\nuser: ${user}\nservice: hs-${name}\nlabels: {tier: gold}\n`;
      const files = { 'deployment/main.yaml': claim, 'lib/payload.yaml': text };
      const bytes = writeZip(
        Object.entries(files).map(([path, t]) => ({ path, bytes: encode(t) })),
        (b) => deflateRawSync(b),
      );
      const form = new FormData();
      form.set('bundle', new Blob([Uint8Array.from(bytes)], { type: 'application/zip' }), 'bundle.zip');
      // The multipart body and its boundary, as fetch would send them.
      const encoded = new Request('http://x/', { method: 'POST', body: form });
      return {
        method: 'POST',
        path: `${API_PREFIX}/tenant/${HOSTILE_TENANT.name}/service/${name}?dryrun=true`,
        headers: { ...auth(user), 'content-type': encoded.headers.get('content-type')! },
        body: new Uint8Array(await encoded.arrayBuffer()),
      };
    }
  }
}

/** A tenant's selector rules, replaced (`PATCH /tenant/<name>`). */
export function prepareRules(rules: unknown, user: string): Prepared {
  return { method: 'PATCH', path: `${API_PREFIX}/tenant/${HOSTILE_TENANT.name}`, headers: json(user), body: encode(JSON.stringify({ rules })) };
}

export async function send(base: string, r: Prepared): Promise<DoorAnswer> {
  const res = await fetch(`${base}${r.path}`, { method: r.method, headers: r.headers, ...(r.body ? { body: r.body } : {}) });
  const text = await res.text();
  let body: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return { status: res.status, code: '', message: text.slice(0, 300) };
  }
  // tRPC: {result: {data: {json}}} or {error: {json: {message, data: {code}}}}; REST: {data} or {code, content: {message}}; DM: the data itself.
  // The transport's own refusals (body limits, before tRPC parses anything): {error: {message, code}}.
  if (body.error && !body.error.json) return { status: res.status, code: String(body.error.code ?? ''), message: String(body.error.message ?? '') };
  if (body.error?.json) return { status: res.status, code: String(body.error.json.data?.code ?? ''), message: String(body.error.json.message ?? ''), data: body.error.json.data };
  if (body.result?.data) return { status: res.status, code: 'OK', message: '', data: body.result.data.json };
  if (typeof body.code === 'string' && body.content) return { status: res.status, code: body.code, message: String(body.content.message ?? ''), data: body.content };
  return { status: res.status, code: 'OK', message: '', data: body.data ?? body };
}
