/**
 * Templates referenced by URL or registry name, fetched at save from a
 * registry on loopback (the corpus's application-dm-templates served as
 * raw.githubusercontent would): the guestbook example gains redis and
 * replicatedservice (found by expanding redis), schemas and all; nothing is
 * fetched from a host an operator did not allow, nor for a writer without
 * the right; limits on count, size and redirects hold.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import type { Deployment } from '../engine/model/sources/dm';
import { memoryRepos } from '../repo/memory';
import { seedDemo } from '../seed/demo';
import { createServices, type Services } from './index';
import { TemplateFetcher } from './dm-templates';

const CORPUS = join(process.cwd(), 'corpus/dm');

describe('Deployment Manager templates referenced by URL', () => {
  let server: Server;
  let host: string;
  const requests: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      const url = req.url ?? '/';
      requests.push(url);
      if (url === '/redirect.jinja') return void res.writeHead(302, { location: 'http://example.com/x' }).end();
      if (url === '/big.jinja') return void res.writeHead(200).end('x'.repeat(2 << 20));
      if (url === '/broken.jinja') return void res.writeHead(500).end('no');
      if (url.startsWith('/many/') && url.endsWith('.jinja')) {
        // A binary tree of templates, each naming two more: wide enough to pass 100 fetches within the depth limit.
        const n = Number(url.slice(6, -6));
        return void res.writeHead(200).end(`resources:\n- {name: t${2 * n + 1}, type: 'http://${host}/many/${2 * n + 1}.jinja'}\n- {name: t${2 * n + 2}, type: 'http://${host}/many/${2 * n + 2}.jinja'}\n`);
      }
      if (url === '/raw/web.jinja') return void res.writeHead(200).end("{% import 'lib/names.jinja' as names %}\nresources:\n- name: {{ names.of(env['name']) }}\n  type: Service\n  properties: {port: {{ properties['port'] }}}\n");
      if (url === '/raw/web.jinja.schema') return void res.writeHead(200).end('imports:\n- path: lib/names.jinja\nproperties:\n  port: {type: integer, default: 8080}\n');
      if (url === '/raw/lib/names.jinja') return void res.writeHead(200).end("{% macro of(n) %}{{ n }}-svc{% endmacro %}\n");
      // A registry laid out as raw.githubusercontent.com: /<owner>/<repo>/master/<path>
      const m = /^\/kubernetes\/application-dm-templates\/master\/(.+)$/.exec(url);
      const file = m ? normalize(join(CORPUS, 'application-dm-templates', m[1]!)) : '';
      if (m && file.startsWith(join(CORPUS, 'application-dm-templates'))) {
        let body: Buffer | undefined;
        try {
          body = readFileSync(file);
        } catch {}
        if (body) return void res.writeHead(200).end(body);
      }
      res.writeHead(404).end('not found');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  const guestbook = (name: string) =>
    stringify({
      kind: 'deployment',
      metadata: { namespace: 'main', name },
      target: 'k8s-example',
      // The shipped replicatedservice schema calls env an object while redis passes a list: DM ran with validation off.
      validateSchema: false,
      configuration: parseConfig(readFileSync(join(CORPUS, 'deployment-manager/examples/guestbook/guestbook.yaml'), 'utf8')),
    });
  const parseConfig = (t: string) => parse(t) as unknown;

  async function servicesWith(allowHosts: string[]): Promise<Services> {
    const repos = memoryRepos();
    await seedDemo(repos);
    return createServices(repos, { usersFile: undefined, domainAdmins: ['Sam'], dmTemplates: { allowHosts, registry: `http://${host}/{owner}/{repo}/master/` } });
  }

  test('with no host allowed, nothing is fetched: the registry types stay primitives, with a warning each', async () => {
    const services = await servicesWith([]);
    try {
      const before = requests.length;
      const w = await services.policy.apply(sam, { text: guestbook('gb'), baseGeneration: await services.policy.head(sam) });
      assert.equal(requests.length, before);
      const warnings = w.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.message);
      assert.equal(warnings.length, 2, warnings.join('\n'));
      assert.match(warnings[0]!, /refers to a template at http:\/\/127\.0\.0\.1:\d+\/kubernetes\/application-dm-templates\/master\/.*which this server does not fetch.*KEELSON_DM_ALLOW_HOSTS.*stays a primitive/);
    } finally {
      await services.resolution.close();
    }
  });

  test('an anonymous writer makes the server fetch nothing', async () => {
    const services = await servicesWith([host]);
    try {
      const before = requests.length;
      await assert.rejects(services.policy.apply(null, { text: guestbook('gb'), baseGeneration: 0 }), /UNAUTHORIZED|sign in/i);
      assert.equal(requests.length, before);
    } finally {
      await services.resolution.close();
    }
  });

  test('guestbook: redis and replicatedservice are fetched with their schemas (replicatedservice found by expanding redis), stored in imports, and expand', async () => {
    const services = await servicesWith([host]);
    try {
      const before = requests.length;
      const w = await services.policy.apply(sam, { text: guestbook('gb'), baseGeneration: await services.policy.head(sam) });
      const fetched = requests.slice(before);
      assert.deepEqual(fetched, [
        '/kubernetes/application-dm-templates/master/common/replicatedservice/v1/replicatedservice.jinja',
        '/kubernetes/application-dm-templates/master/common/replicatedservice/v1/replicatedservice.py',
        '/kubernetes/application-dm-templates/master/common/replicatedservice/v1/replicatedservice.py.schema',
        '/kubernetes/application-dm-templates/master/storage/redis/v1/redis.jinja',
        '/kubernetes/application-dm-templates/master/storage/redis/v1/redis.jinja.schema',
      ]);
      assert.match(w.diagnostics.find((d) => d.severity === 'info')!.message, /^Fetched 4 files into imports: /);
      const stored = await services.policy.getObject(sam, { kind: 'deployment', namespace: 'main', name: 'gb' });
      const d = stored!.spec as Deployment;
      const rs = 'github.com/kubernetes/application-dm-templates/common/replicatedservice:v1';
      assert.deepEqual(Object.keys(d.imports ?? {}).sort(), [rs, `${rs}.schema`, 'github.com/kubernetes/application-dm-templates/storage/redis:v1', 'github.com/kubernetes/application-dm-templates/storage/redis:v1.schema']);
      assert.match(stored!.text, /path: http:\/\/127\.0\.0\.1:\d+\/kubernetes\/application-dm-templates\/master\/common\/replicatedservice\/v1\/replicatedservice\.py/);
      const x = await services.dm.expand(sam, { name: 'gb', content: stringify(d.configuration), imports: Object.entries(d.imports!).map(([name, f]) => ({ name, ...(typeof f === 'string' ? { content: f } : f) })) }).catch((e) => e);
      // validateSchema is a deployment setting; the dry run validates, so it names the schema's mistake.
      assert.match(String(x.message ?? ''), /is not of type 'object' at \['env'\]/);
      // A second deployment of the same templates is served from the cache.
      const again = requests.length;
      await services.policy.apply(sam, { text: guestbook('gb2'), baseGeneration: await services.policy.head(sam) });
      assert.equal(requests.length, again, requests.slice(again).join('\n'));
      // The revision holds its primitives: frontend, redis-master and redis-slave, each a Service and a ReplicationController.
      const state = (await services.resolution.ensure(await services.policy.head(sam))).state;
      const outcome = state.claims.find((c) => c.kind === 'deployment' && c.name === 'gb')!;
      assert.equal(outcome.status, 'resolved', outcome.errors.join('\n'));
      assert.equal(outcome.instances?.length, 6);
    } finally {
      await services.resolution.close();
    }
  });

  test('a raw URL template: its schema and the helper the schema imports, relative to it', async () => {
    const f = new TemplateFetcher({ allowHosts: [host] });
    const type = `http://${host}/raw/web.jinja`;
    const r = await f.resolve([{ type }], {}, async () => ({ config: { resources: [] }, layout: { resources: [] }, references: { edges: [], unknown: [], cycles: [], order: [] }, errors: [] }) as any);
    assert.deepEqual(Object.keys(r.imports).sort(), [type, `${type}.schema`, 'lib/names.jinja']);
    assert.deepEqual(r.imports['lib/names.jinja'], { content: "{% macro of(n) %}{{ n }}-svc{% endmacro %}\n", path: `http://${host}/raw/lib/names.jinja` });
  });

  test('a host not on the list, a redirect, a failure, an oversized file and a 101st fetch are refused by name', async () => {
    const empty = async () => ({ config: { resources: [] }, layout: { resources: [] }, references: { edges: [], unknown: [], cycles: [], order: [] }, errors: [] }) as any;
    const other = await new TemplateFetcher({ allowHosts: ['templates.example.com'] }).resolve([{ type: `http://${host}/raw/web.jinja` }], {}, empty);
    assert.match(other.warnings[0]!, /is on a host this server may not fetch from \(allowed: templates\.example\.com\)/);
    const f = new TemplateFetcher({ allowHosts: [host], maxBytes: 1 << 20 });
    await assert.rejects(f.resolve([{ type: `http://${host}/redirect.jinja` }], {}, empty), /redirects \(302\); redirects are not followed/);
    await assert.rejects(f.resolve([{ type: `http://${host}/broken.jinja` }], {}, empty), /the server answered 500/);
    await assert.rejects(f.resolve([{ type: `http://${host}/big.jinja` }], {}, empty), /larger than 1048576 bytes/);
    await assert.rejects(f.resolve([{ type: 'gs://bucket/t.jinja' }], {}, empty), /gs:\/\/\) templates are not supported/);
    // Each template names two more: the 101st fetch is refused with DM's words.
    const { expandConfiguration } = await import('../engine/dm/expand');
    const { pythonSandbox } = await import('../dm-python');
    const chain = (imports: Record<string, any>) =>
      Promise.resolve(expandConfiguration({ config: `resources:\n- {name: a, type: 'http://${host}/many/0.jinja'}\n`, imports }, { renderJinja: pythonSandbox().jinja }));
    await assert.rejects(new TemplateFetcher({ allowHosts: [host] }).resolve([{ type: `http://${host}/many/0.jinja` }], {}, chain), /Number of imports exceeds maximum of 100/);
  });
});
