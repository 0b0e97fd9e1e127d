/**
 * The Python sandbox as a hostile template author meets it: a loop or a
 * memory hog is stopped at its limit and the next template still runs; the
 * host's files, network and JavaScript are out of reach; one tenant's
 * interpreter state never reaches another's. And as a template author meets
 * it: DM's Python 2 names work, `yaml` is there, errors name the line.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import type { TemplateContext } from '../engine/dm';
import { createPythonSandbox } from './index';

const sandbox = createPythonSandbox({ runMs: 3000, memoryMb: 400 });
after(() => sandbox.close());

const ctx = (project: string, properties: TemplateContext['properties'] = {}): TemplateContext => ({
  env: { project, deployment: 'd', name: 'r', type: 't.py' },
  properties,
  imports: {},
  name: 'r',
  type: 't.py',
});

const run = (source: string, project = 'tenant-a', modules: Record<string, string> = {}) => sandbox.run(source, ctx(project), modules);

describe('Python sandbox: limits', () => {
  test('a template that loops forever is stopped at its time limit, and the next one runs', () => {
    const t0 = Date.now();
    const r = run('def GenerateConfig(c):\n  while True:\n    pass\n');
    assert.deepEqual(r, { ok: false, message: 'ran over its time limit of 3 s and was stopped', reason: 'limit' });
    assert.ok(Date.now() - t0 < 3000 + 120_000, 'stopped, not left running');
    assert.deepEqual(run("def GenerateConfig(c):\n  return {'resources': []}\n"), { ok: true, value: { resources: [] } });
  });

  test('a template that grows without end is stopped at its memory limit', () => {
    const r = run("def GenerateConfig(c):\n  x = []\n  while True:\n    x.append(bytearray(8 << 20))\n");
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason, 'limit');
    assert.match(!r.ok ? r.message : '', /used more than 400 MB of memory/);
  });

  test('deep recursion is an ordinary exception with its line', () => {
    const r = run('def f(n):\n  return f(n + 1)\n\ndef GenerateConfig(c):\n  return f(0)\n');
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /^RecursionError: .* \(line \d\)$/);
  });
});

describe('Python sandbox: out of reach', () => {
  test("the host's files can be neither read nor written", () => {
    const sentinel = `/tmp/keelson-sandbox-${process.pid}`;
    rmSync(sentinel, { force: true });
    const r = run(
      [
        'def GenerateConfig(c):',
        '  out = {}',
        '  for p in ["/etc/hostname", "/etc/passwd", "/proc/self/environ"]:',
        '    try:',
        '      open(p).read()',
        '      out[p] = "read"',
        '    except Exception as e:',
        '      out[p] = type(e).__name__',
        `  open(${JSON.stringify(sentinel)}, "w").write("escaped")`,
        "  return {'resources': [], 'probe': out}",
      ].join('\n'),
    );
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.deepEqual((r.ok && (r.value as any).probe) || null, { '/etc/hostname': 'FileNotFoundError', '/etc/passwd': 'FileNotFoundError', '/proc/self/environ': 'FileNotFoundError' });
    assert.equal(existsSync(sentinel), false, 'a write inside the sandbox stays in its memory file system');
  });

  test('the network is unreachable: a listener on the host loopback sees no connection', async () => {
    let connections = 0;
    const server = createServer((_q, s) => s.end('secret')).on('connection', () => connections++);
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    try {
      const r = run(
        [
          'import socket',
          'def GenerateConfig(c):',
          '  try:',
          `    socket.create_connection(("127.0.0.1", ${port}), timeout=2).recv(10)`,
          '    return {"resources": [], "got": "connected"}',
          '  except Exception as e:',
          '    return {"resources": [], "got": type(e).__name__}',
        ].join('\n'),
      );
      assert.equal(r.ok, true, JSON.stringify(r));
      assert.notEqual((r.ok && (r.value as any).got) || '', 'connected');
      await new Promise((ok) => setTimeout(ok, 100));
      assert.equal(connections, 0);
    } finally {
      server.close();
    }
  });

  test('JavaScript is out of reach: no js module, and no way from a JS object to code', () => {
    const sentinel = `/tmp/keelson-sandbox-js-${process.pid}`;
    rmSync(sentinel, { force: true });
    const r = run(
      [
        'import gc, sys',
        'def GenerateConfig(c):',
        '  out = []',
        '  for m in ["js", "pyodide_js", "pyodide.ffi"]:',
        '    try:',
        '      __import__(m)',
        '      out.append(m + " imported")',
        '    except ImportError:',
        '      out.append(m + " refused")',
        '  for o in gc.get_objects():',
        '    if type(o).__module__ == "pyodide.ffi" or type(o).__name__.startswith("Js"):',
        '      try:',
        `        o.constructor.constructor('''require("fs").writeFileSync("${sentinel}", "x")''')()`,
        '        out.append("code from a string ran")',
        '      except Exception:',
        '        pass',
        "  return {'resources': [], 'probe': out}",
      ].join('\n'),
    );
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.deepEqual((r.ok && (r.value as any).probe) || null, ['js refused', 'pyodide_js refused', 'pyodide.ffi refused']);
    assert.equal(existsSync(sentinel), false);
  });

  test("one tenant's interpreter state never reaches another's", () => {
    const mark = "import json\ndef GenerateConfig(c):\n  json.keelson_mark = c.env['project']\n  return {'resources': []}\n";
    const look = "import json\ndef GenerateConfig(c):\n  return {'resources': [], 'seen': getattr(json, 'keelson_mark', None)}\n";
    assert.equal(run(mark, 'tenant-a').ok, true);
    const b = run(look, 'tenant-b');
    assert.equal(b.ok && (b.value as any).seen, null);
  });
});

describe('Python sandbox: what DM templates expect', () => {
  test("Python 2 names, a helper module from the imports, the yaml module, and the context's attributes", () => {
    const r = sandbox.run(
      [
        'import yaml',
        'from helpers import naming',
        'def GenerateConfig(context):',
        '  names = [naming.full(context.env["deployment"], k) for k, v in sorted(context.properties.iteritems())]',
        '  names += [unicode(i) for i in xrange(2)]',
        "  assert context.properties.has_key('a') and isinstance('x', basestring)",
        "  return yaml.dump({'resources': [{'name': n, 'type': 'T'} for n in names], 'text': context.imports['notes.txt']})",
      ].join('\n'),
      { ...ctx('tenant-a', { a: 1, b: 2 }), imports: { 'notes.txt': 'hello' } },
      { 'helpers/naming.py': "def full(d, k):\n  return '%s-%s' % (d, k)\n", 'notes.txt': 'hello' },
    );
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.deepEqual(JSON.parse((r.ok && (r.value as string)) || '{}'), { resources: ['d-a', 'd-b', '0', '1'].map((name) => ({ name, type: 'T' })), text: 'hello' });
  });

  test('an exception names its type, message and line; no GenerateConfig says so', () => {
    assert.deepEqual(run("def GenerateConfig(c):\n  x = 1\n  return c.properties['image']\n"), { ok: false, message: "KeyError: 'image' (line 3)", reason: 'exception' });
    assert.deepEqual(run('x = 1\n'), { ok: false, message: 'the template defines no GenerateConfig(context) function', reason: 'exception' });
    const syntax = run('def GenerateConfig(c)\n  return 1\n');
    assert.match(!syntax.ok ? syntax.message : '', /^SyntaxError: .* \(line 1\)$/);
  });
});
