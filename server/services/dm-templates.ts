/**
 * Deployment Manager templates referenced by URL (reference/dm.md §2,
 * manager-side loop; seeds "Template references by URL"): a resource type
 * that is `http(s)://…/t.py` or a registry name
 * `github.com/<owner>/<repo>/<collection>/<type>:<version>` is fetched —
 * the template, then `<template>.schema` (a registry template must have
 * one), then the files that schema imports — and kept in the deployment's
 * `imports` with its URL as `path`, as DM kept them in the manifest's
 * inputConfig. The configuration is then expanded again, and types its
 * templates produce are fetched too, until nothing new is referenced.
 *
 * Only hosts an operator allows are fetched (none by default), at most 100
 * fetches per save, each at most 1 MiB, within a time limit, no redirects.
 * Fetched files are cached by URL and content hash for the process's life:
 * a registry version does not change under a given URL.
 *
 * Fetching happens at save, after the writer's rights were checked; the
 * expansion engine never touches the network.
 */
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import type { ExpandResult } from '../engine/dm';
import { readCapped } from '../http/read-capped';
import { AppError } from '../errors';

export interface TemplateFetchOptions {
  /** `host` or `host:port` values that may be fetched from; empty: nothing is fetched. */
  allowHosts: readonly string[];
  /** Base of registry names: `{owner}` and `{repo}` are filled in; the collection path follows. */
  registry: string;
  maxFetches: number;
  maxBytes: number;
  timeoutMs: number;
}

export const DEFAULT_REGISTRY = 'https://raw.githubusercontent.com/{owner}/{repo}/master/';
export const DEFAULT_TEMPLATE_FETCH: TemplateFetchOptions = { allowHosts: [], registry: DEFAULT_REGISTRY, maxFetches: 100, maxBytes: 1 << 20, timeoutMs: 10_000 };

export type ImportEntry = string | { content: string; path: string };

/** How a resource type refers to a template somewhere else, if it does. */
export type TemplateReference =
  | { kind: 'url'; url: string }
  | { kind: 'registry'; owner: string; repo: string; collection: string; name: string; version: string }
  | { kind: 'unsupported'; why: string };

const REGISTRY = /^github\.com\/([\w.-]+)\/([\w.-]+)\/((?:[\w.-]+\/)*)([\w.-]+):(v\d+(?:\.\d+){0,2})$/;

export function templateReference(type: string): TemplateReference | undefined {
  if (/^https?:\/\//.test(type)) return { kind: 'url', url: type };
  if (type.startsWith('gs://')) return { kind: 'unsupported', why: 'Google Cloud Storage (gs://) templates are not supported; use an https URL' };
  const m = REGISTRY.exec(type);
  if (m) return { kind: 'registry', owner: m[1]!, repo: m[2]!, collection: m[3]!.replace(/\/$/, ''), name: m[4]!, version: m[5]! };
  return undefined;
}

/** A URL that answered 404, kept so a registry lookup of `.jinja` before `.py` is not repeated. */
const MISSING = '';

/** Text that may name a referenced template. */
const REFERENCE_HINT = /github\.com\/|https?:\/\/|gs:\/\//;

class NotAllowed extends Error {
  constructor(
    readonly url: string,
    why: string,
  ) {
    super(why);
  }
}

class FetchBudget {
  count = 0;
  constructor(readonly max: number) {}
  take(url: string): void {
    if (++this.count > this.max) throw new AppError('INVALID_INPUT', `Number of imports exceeds maximum of ${this.max} (while fetching ${url}). Nothing was saved.`);
  }
}

export class TemplateFetcher {
  private readonly byUrl = new Map<string, string>();
  private readonly byHash = new Map<string, string>();
  readonly options: TemplateFetchOptions;

  constructor(
    options: Partial<TemplateFetchOptions> = {},
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.options = { ...DEFAULT_TEMPLATE_FETCH, ...options };
  }

  private allowed(url: URL): boolean {
    return this.options.allowHosts.includes(url.host) || (url.port === '' && this.options.allowHosts.includes(url.hostname));
  }

  /** The text at `url`; undefined on 404 when `optional`. Refusals are INVALID_INPUT naming the URL and the referring type. */
  async text(url: string, budget: FetchBudget, forType: string, optional = false): Promise<string | undefined> {
    const parsed = new URL(url);
    const refuse = (why: string): never => {
      throw new AppError('INVALID_INPUT', `Cannot fetch ${url} for type '${forType}': ${why}. Nothing was saved.`);
    };
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') refuse('only http and https URLs are fetched');
    if (!this.allowed(parsed)) {
      throw new NotAllowed(
        url,
        this.options.allowHosts.length === 0
          ? 'this server does not fetch (an operator lists the hosts it may fetch from in KEELSON_DM_ALLOW_HOSTS; or include the file in imports)'
          : `is on a host this server may not fetch from (allowed: ${this.options.allowHosts.join(', ')})`,
      );
    }
    const hash = this.byUrl.get(url);
    if (hash === MISSING && optional) return undefined;
    if (hash !== undefined && hash !== MISSING) return this.byHash.get(hash);
    budget.take(url);
    let res: Response;
    try {
      const get = () => this.fetchImpl(url, { redirect: 'manual', signal: AbortSignal.timeout(this.options.timeoutMs) });
      // A kept-alive connection the server just closed fails at once: a GET may be sent again, once.
      res = await get().catch((e: unknown) => (e instanceof Error && e.name !== 'TimeoutError' ? get() : Promise.reject(e)));
    } catch (e) {
      return refuse(e instanceof Error && e.name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs / 1000} s` : `the request failed (${e instanceof Error ? [e.message, (e.cause as Error | undefined)?.message].filter(Boolean).join(': ') : String(e)})`);
    }
    if (res.status === 404 && optional) {
      this.byUrl.set(url, MISSING);
      return undefined;
    }
    if (res.status >= 300 && res.status < 400) refuse(`it redirects (${res.status}); redirects are not followed`);
    if (res.status !== 200) refuse(`the server answered ${res.status}`);
    const body = await readLimited(res, this.options.maxBytes);
    if (body === undefined) refuse(`it is larger than ${this.options.maxBytes} bytes`);
    const digest = createHash('sha256').update(body!).digest('hex');
    this.byHash.set(digest, body!);
    this.byUrl.set(url, digest);
    return body;
  }

  /**
   * The imports a deployment needs beyond the ones it has: every template
   * its types (and its templates' output types) refer to, with schemas and
   * schema imports. `expandWith` expands the configuration against a set of
   * imports (on a resolver thread: Python may run). A type on a host this
   * server may not fetch from stays a primitive, with a warning.
   */
  async resolve(
    resources: readonly { type: string }[],
    imports: Record<string, ImportEntry>,
    expandWith: (imports: Record<string, ImportEntry>) => Promise<ExpandResult>,
  ): Promise<{ imports: Record<string, ImportEntry>; warnings: string[] }> {
    const budget = new FetchBudget(this.options.maxFetches);
    const all: Record<string, ImportEntry> = { ...imports };
    const skipped = new Set<string>();
    const warnings: string[] = [];
    const open = (t: string) => !(t in all) && !skipped.has(t) && templateReference(t) !== undefined;
    let types = resources.map((r) => r.type);
    for (;;) {
      for (const t of [...new Set(types)].filter(open)) {
        try {
          await this.fetchTemplate(t, all, budget);
        } catch (e) {
          if (!(e instanceof NotAllowed)) throw e;
          skipped.add(t);
          warnings.push(`Type '${t}' refers to a template at ${e.url}, which ${e.message}; it stays a primitive.`);
        }
      }
      // What templates produce may name more templates (redis names replicatedservice); only text that names one is worth expanding for.
      if (!Object.values(all).some((f) => REFERENCE_HINT.test(typeof f === 'string' ? f : f.content))) break;
      const r = await expandWith(all);
      if (r.errors.length > 0) break; // the save's own check reports why, with DM's words
      types = r.config.resources.map((x) => x.type).filter(open);
      if (types.length === 0) break;
    }
    return { imports: all, warnings };
  }

  private async fetchTemplate(type: string, into: Record<string, ImportEntry>, budget: FetchBudget): Promise<void> {
    const ref = templateReference(type)!;
    if (ref.kind === 'unsupported') throw new AppError('INVALID_INPUT', `Type '${type}': ${ref.why}. Nothing was saved.`);
    let url: string;
    let content: string | undefined;
    if (ref.kind === 'url') {
      url = ref.url;
      content = await this.text(url, budget, type);
    } else {
      const base = this.options.registry.replace('{owner}', ref.owner).replace('{repo}', ref.repo);
      const dir = `${base.replace(/\/?$/, '/')}${ref.collection ? `${ref.collection}/` : ''}${ref.name}/${ref.version}/`;
      url = `${dir}${ref.name}.jinja`;
      content = await this.text(url, budget, type, true);
      if (content === undefined) {
        url = `${dir}${ref.name}.py`;
        content = await this.text(url, budget, type, true);
      }
      if (content === undefined) throw new AppError('INVALID_INPUT', `Type '${type}': the registry has neither ${ref.name}.jinja nor ${ref.name}.py under ${dir}. Nothing was saved.`);
    }
    into[type] = { content: content!, path: url };
    const schema = await this.text(`${url}.schema`, budget, type, ref.kind === 'url');
    if (schema === undefined) return;
    into[`${type}.schema`] = { content: schema, path: `${url}.schema` };
    let doc: unknown;
    try {
      doc = parseYaml(schema);
    } catch {
      return; // an unreadable schema is reported by the expansion, with DM's words
    }
    const list = (doc as { imports?: unknown } | null)?.imports;
    if (!Array.isArray(list)) return;
    for (const i of list) {
      const path = (i as { path?: unknown })?.path;
      if (typeof path !== 'string') continue;
      const name = typeof (i as { name?: unknown }).name === 'string' ? ((i as { name: string }).name as string) : path;
      if (name in into) continue;
      const at = new URL(path, url).href;
      into[name] = { content: (await this.text(at, budget, type))!, path: at };
    }
  }
}

async function readLimited(res: Response, max: number): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) return undefined;
  if (!res.body) return '';
  const r = await readCapped(res.body, max);
  return 'bytes' in r ? Buffer.from(r.bytes).toString('utf8') : undefined;
}
