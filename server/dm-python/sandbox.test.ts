/**
 * The Python sandbox as a hostile template author meets it: a loop or a
 * memory hog is stopped at its limit and the next template still runs; the
 * host's files, network, environment and JavaScript are out of reach; one
 * tenant's interpreter state never reaches another's. And as a template
 * author meets it: DM's Python 2 names work, `yaml` is PyYAML, errors name
 * the line. And as the server meets it: a pool of warm processes, reused,
 * recycled, and gone when the pool is closed or its thread is stopped.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { expandDeployment, parseYaml, usePythonRunner, type TemplateContext } from '../engine/dm';
import { createPythonSandbox, PYYAML_MISSING } from './index';

// Limits far away: a test of what templates can do must not be stopped by a limit on a loaded machine.
// Each limit test has a sandbox of its own, where the limit under test is the only one that can fire.
const sandbox = createPythonSandbox({ runMs: 120_000, memoryMb: 1024 });
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
  test('a template that loops forever is stopped at its time limit, and the next one runs', async () => {
    // A sandbox of its own with a memory limit far away, so that only the time limit can stop it.
    const own = createPythonSandbox({ runMs: 3000, memoryMb: 4096, processes: 1 });
    try {
      const r = own.run('def GenerateConfig(c):\n  while True:\n    pass\n', ctx('tenant-a'), {});
      assert.deepEqual(r, { ok: false, message: 'ran over its time limit of 3 s and was stopped', reason: 'limit', timedOut: true });
      assert.deepEqual(own.run("def GenerateConfig(c):\n  return {'resources': []}\n", ctx('tenant-a'), {}), { ok: true, value: { resources: [] } });
    } finally {
      await own.close();
    }
  });

  test('a template that grows without end is stopped at its memory limit', async () => {
    // A sandbox of its own with a time limit far away, so that only the memory limit can stop it, however loaded the machine;
    // and memory that is written, so that it is resident.
    const own = createPythonSandbox({ runMs: 120_000, memoryMb: 400, processes: 1 });
    const r = own.run("def GenerateConfig(c):\n  x = []\n  while True:\n    x.append(b'x' * (8 << 20))\n", ctx('tenant-a'), {});
    await own.close();
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
    const out = parseYaml((r.ok && (r.value as string)) || '', 'template');
    assert.deepEqual(out.ok && out.value, { resources: ['d-a', 'd-b', '0', '1'].map((name) => ({ name, type: 'T' })), text: 'hello' });
  });

  test('yaml is the real PyYAML: safe_load reads block YAML with PyYAML 1.1 scalars, and dump writes it', () => {
    const r = sandbox.run(
      [
        'import yaml',
        'def GenerateConfig(context):',
        '  doc = yaml.safe_load(context.imports["ports.yaml"])',
        '  ports = [{"name": p["name"], "containerPort": p["port"]} for p in doc["ports"]]',
        '  assert doc["debug"] is True and doc["short"] == "y" and doc["mode"] == 0o644, doc',
        '  assert yaml.__file__.startswith("/keelson/pyyaml/"), yaml.__file__',
        '  return yaml.dump({"resources": [{"name": "web", "type": "Pod", "properties": {"ports": ports, "flag": "yes"}}]}, default_flow_style=False)',
      ].join('\n'),
      { ...ctx('tenant-a'), imports: { 'ports.yaml': 'debug: on\nshort: y\nmode: 0644\nports:\n  - name: http\n    port: 80\n  - name: metrics\n    port: 9090\n' } },
      {},
    );
    assert.equal(r.ok, true, JSON.stringify(r));
    const text = (r.ok && (r.value as string)) || '';
    // Block YAML, as PyYAML writes it, with 'yes' quoted so that it stays text.
    assert.match(text, /^resources:\n- name: web\n/);
    const out = parseYaml(text, 'template');
    assert.deepEqual(out.ok && out.value, { resources: [{ name: 'web', type: 'Pod', properties: { ports: [{ name: 'http', containerPort: 80 }, { name: 'metrics', containerPort: 9090 }], flag: 'yes' } }] });
  });

  test('PyYAML cannot be changed by a template: its files are read-only, and the interpreter carries on', () => {
    const r = run('import yaml, os\ndef GenerateConfig(c):\n  open(os.path.join(os.path.dirname(yaml.__file__), "__init__.py"), "a").write("x = 1\\n")\n  return {}\n');
    assert.deepEqual(r, { ok: false, message: "PermissionError: [Errno 2] Permission denied: '/keelson/pyyaml/yaml/__init__.py' (line 3)", reason: 'exception' });
    assert.deepEqual(run('import yaml\ndef GenerateConfig(c):\n  return {"v": yaml.safe_load("a: [on, n]")}\n'), { ok: true, value: { v: { a: [true, 'n'] } } });
  });

  test('where the server has no PyYAML, importing yaml says what to install', async () => {
    const bare = createPythonSandbox({ runMs: 120_000, memoryMb: 400, processes: 1, pyyamlDir: null });
    const r = bare.run('import yaml\ndef GenerateConfig(c):\n  return {}\n', ctx('tenant-a'), {});
    await bare.close();
    assert.deepEqual(r, { ok: false, message: `ModuleNotFoundError: ${PYYAML_MISSING} (line 1)`, reason: 'exception' });
    assert.match(PYYAML_MISSING, /apt-get install python3-yaml/);
  });

  test('an exception names its type, message and line; no GenerateConfig says so', () => {
    assert.deepEqual(run("def GenerateConfig(c):\n  x = 1\n  return c.properties['image']\n"), { ok: false, message: "KeyError: 'image' (line 3)", reason: 'exception' });
    assert.deepEqual(run('x = 1\n'), { ok: false, message: 'the template defines no GenerateConfig(context) function', reason: 'exception' });
    const syntax = run('def GenerateConfig(c)\n  return 1\n');
    assert.match(!syntax.ok ? syntax.message : '', /^SyntaxError: .* \(line 1\)$/);
  });
});

/** A template's GenerateConfig result (the data it returned), or the failure message. */
const value = (r: ReturnType<typeof sandbox.run>): unknown => (r.ok ? r.value : `refused: ${r.message}`);
const py = (...lines: string[]) => `${lines.join('\n')}\n`;

describe("Python sandbox: DM's templates are Python 2", () => {
  test("'/' is Python 2's: two integers floor (5 / 2 is 2, -7 / 2 is -4), a float divides, /= too, in helper modules too; __future__ division keeps true division", () => {
    const r = sandbox.run(
      py(
        'from helpers import calc',
        'class Box(object): pass',
        'def GenerateConfig(context):',
        '  a = context.properties["a"]',
        '  n, box, l = a, Box(), [a]',
        '  box.v = a',
        '  n /= 2; box.v /= 2; l[0] /= 2',
        '  return {"half": a / 2, "neg": -7 / 2, "float": a / 2.0, "aug": [n, box.v, l[0]], "helper": calc.half(a), "floor": a // 2}',
      ),
      ctx('tenant-a', { a: 5 }),
      { 'helpers/calc.py': 'def half(n):\n  return n / 2\n' },
    );
    assert.deepEqual(value(r), { half: 2, neg: -4, float: 2.5, aug: [2, 2, 2], helper: 2, floor: 2 });
    assert.deepEqual(value(run(py('from __future__ import division', 'def GenerateConfig(c):', '  return {"h": 5 / 2}'))), { h: 2.5 });
  });

  test('Python 2 statements run as Python 2 ran them, and the same text inside strings and comments is left alone', () => {
    const r = run(
      py(
        'import sys',
        'def GenerateConfig(context):',
        '  ns = {}',
        '  exec "y = 6 * 7 / 4" in ns',
        '  try:',
        '    raise KeyError, "gone"',
        '  except (KeyError, ValueError), e:',
        '    caught = e.message',
        '  try:',
        '    int("q")',
        '  except ValueError, e:',
        '    message = str(e)',
        '  print >>sys.stdout, "# a YAML comment"',
        '  print("# Python 3\'s call", end="\\n")',
        '  show = print',
        '  return {"y": ns["y"], "eval": eval("7 / 2"), "show": show is print, "caught": caught, "message": message, "ne": 1 <> 2, "repr": `7`, "mode": 0755, "big": 10L,',
        '          "text": "except E, e: 1 <> 2 `x` 0755 print x  # not code"}  # except E, e: print x',
      ),
    );
    assert.deepEqual(value(r), {
      y: 10,
      eval: 3,
      show: true,
      caught: 'gone',
      message: "invalid literal for int() with base 10: 'q'",
      ne: true,
      repr: '7',
      mode: 493,
      big: 10,
      text: 'except E, e: 1 <> 2 `x` 0755 print x  # not code',
    });
  });

  test("ur'' strings, tuple parameters and tabs mixed with spaces in indentation run as Python 2 ran them", () => {
    const r = run(
      py(
        'def add((a, b), c=1):',
        '  if a:',
        '    return a + b + c',
        '  return 0',
        'def GenerateConfig(c):',
        '  pairs = sorted({"a": 2, "b": 1}.items(), key=lambda (k, v): v)',
        '  nested = lambda x, (a, (b, d)): x + a + b + d',
        '  return {"raw": ur"a\\d\\u0041", "add": [add((1, 2)), add([3, 4], 5)], "keys": [k for k, v in pairs], "nested": nested(1, (2, (3, 4)))}',
      ),
    );
    assert.deepEqual(value(r), { raw: 'a\\dA', add: [4, 12], keys: ['b', 'a'], nested: 10 });
    // Indentation mixing a tab and spaces, as Python 2 read it (a tab reaches column 8); the tab inside the string stays.
    assert.deepEqual(value(run('def GenerateConfig(c):\n        x = """a\n\tb"""\n\treturn {"x": x}\n')), { x: 'a\n\tb' });
  });

  test("a dict's keys(), values() and items() are lists, whoever built the dict; iteritems and has_key work; the context's dicts are plain dicts", () => {
    const r = sandbox.run(
      py(
        'import yaml, json',
        'def GenerateConfig(context):',
        '  out = []',
        '  for d in [context.properties, {"b": 2, "a": 1}, dict(b=2, a=1), yaml.safe_load("b: 2\\na: 1"), json.loads(\'{"b": 2, "a": 1}\')]:',
        '    k = d.keys()',
        '    k.sort()',
        '    out.append([k, sorted(d.values())[0], d.items()[0][0] in k, d.has_key("a"), sorted(d.iteritems())])',
        '  return {"out": out, "plain": type(context.properties) is dict}',
      ),
      ctx('tenant-a', { b: 2, a: 1 }),
      {},
    );
    const each = [['a', 'b'], 1, true, true, [['a', 1], ['b', 2]]];
    assert.deepEqual(value(r), { out: [each, each, each, each, each], plain: true });
  });

  test("template code sees Python 2's builtins and str() of floats; the library code it calls keeps Python 3's", () => {
    const r = run(
      py(
        'import yaml',
        'def GenerateConfig(c):',
        '  nums = range(3) + [10]',
        '  return {"nums": nums, "map": map(str, nums), "odd": filter(lambda n: n % 2, nums), "pairs": zip("ab", nums)[-1],',
        '          "none": "yes" if filter(lambda n: n > 99, nums) else "no", "round": [round(2.5), round(-0.5), round(0.125, 2)],',
        '          "str": [str(0.1 + 0.2), "%s" % (2.0 / 3), "{}".format(1e16)], "oct": oct(493),',
        '          "sorted": sorted([1, 3, 2], cmp=lambda a, b: cmp(b, a)), "yaml": yaml.safe_dump({"k": range(2)})}',
      ),
    );
    assert.deepEqual(value(r), {
      nums: [0, 1, 2, 10],
      map: ['0', '1', '2', '10'],
      odd: [1],
      pairs: ['b', 1],
      none: 'no',
      round: [3, -1, 0.13],
      str: ['0.3', '0.666666666667', '1e+16'],
      oct: '0755',
      sorted: [3, 2, 1],
      yaml: 'k:\n- 0\n- 1\n',
    });
  });

  test("Python 2's str was bytes: base64, hashlib and str.encode take and give text, math.floor and ceil give floats; library code keeps Python 3's", () => {
    const r = sandbox.run(
      py(
        'import base64, hashlib, math, yaml',
        'from math import ceil',
        'def GenerateConfig(context):',
        '  pw = context.properties["pw"]',
        '  return {"b64": base64.b64encode(pw), "back": base64.b64decode(base64.b64encode(pw)).decode("utf-8"), "md5": hashlib.md5(pw).hexdigest(),',
        '          "codecs": [pw.encode("base64"), pw.encode("hex"), pw.encode("utf-8") + "!"], "name": "r-" + str(math.ceil(5 / 2.0)), "floor": str(math.floor(2.5)),',
        '          "ceil": ceil(0.5), "binary": yaml.safe_dump(yaml.safe_load("!!binary aGVsbG8="))}',
      ),
      ctx('tenant-a', { pw: 's3cret' }),
      {},
    );
    // Each value as Python 2.7 gave it.
    assert.deepEqual(value(r), {
      b64: 'czNjcmV0',
      back: 's3cret',
      md5: '33e1b232a4e6fa0028a6670753749a17',
      codecs: ['czNjcmV0\n', '733363726574', 's3cret!'],
      name: 'r-3.0',
      floor: '2.0',
      ceil: 1,
      binary: '!!binary |\n  aGVsbG8=\n',
    });
  });

  test("a print fails the expansion where DM's service failed it (its result read as YAML after the printed text), naming the line; one it read past passes; a stderr write fails", () => {
    assert.deepEqual(
      value(run(py('def GenerateConfig(c):', '  x = 1', '  print "replicas", x', '  return {"resources": []}'))),
      "refused: the template printed 'replicas 1\\n' to stdout (t.py line 3): DM's service read what templates print as part of the expansion's result, and with this in front of it the result was not YAML (mapping values are not allowed here); remove the print",
    );
    // Text DM's service read past: a comment, a blank line, a mapping key (dropped with the result's other keys).
    assert.deepEqual(value(run(py('def GenerateConfig(c):', '  print "# generated by t.py"', '  print', '  print "replicas:", 1', '  return {"resources": []}'))), { resources: [] });
    assert.deepEqual(
      value(sandbox.run(py('from helpers import log', 'def GenerateConfig(c):', '  log.warn("careful")', '  return {"resources": []}'), ctx('tenant-a'), { 'helpers/log.py': 'import sys\ndef warn(m):\n  sys.stderr.write(m)\n' })),
      "refused: the template wrote to stderr (helpers/log.py line 3): 'careful'. DM's service failed an expansion that wrote anything to stderr; remove the write",
    );
  });

  test("what one expansion's templates print adds up, as DM's service read it all in front of the result", async () => {
    const own = createPythonSandbox({ runMs: 60_000, processes: 1 });
    usePythonRunner(own.run);
    try {
      const parent = py('def GenerateConfig(c):', '  print "items:"', "  return {'resources': [{'name': 'c', 'type': 'child.py'}]}");
      const child = py('def GenerateConfig(c):', '  print "  - a"', "  return {'resources': [{'name': 'p', 'type': 'T'}]}");
      // Alone, "  - a" in front of DM's result is not YAML; after the parent's "items:" it is a list under that key.
      const alone = expandDeployment({ config: 'resources:\n- {name: top, type: child.py}\n', imports: { 'child.py': child } }, { deployment: 'd1', project: 'tenant-print' });
      assert.match(alone.errors[0]?.message ?? '', /printed '  - a\\n' to stdout \(child\.py line 2\)/);
      const both = expandDeployment({ config: 'resources:\n- {name: top, type: parent.py}\n', imports: { 'parent.py': parent, 'child.py': child } }, { deployment: 'd2', project: 'tenant-print' });
      assert.deepEqual(both.errors, []);
    } finally {
      usePythonRunner(undefined);
      await own.close();
    }
  });

  test('Python 2 module names that Python 3 renamed import; a Python 3 error that comes from a Python 2 habit says so', () => {
    assert.deepEqual(
      value(run(py('import urllib, urlparse', 'from StringIO import StringIO', 'def GenerateConfig(c):', '  b = StringIO()', '  b.write(urllib.quote("a b"))', '  return {"q": b.getvalue(), "host": urlparse.urlparse("http://h/p").netloc}'))),
      { q: 'a%20b', host: 'h' },
    );
    assert.deepEqual(
      value(run(py('def GenerateConfig(c):', '  return {"l": sorted([None, 1])}'))),
      "refused: TypeError: '<' not supported between instances of 'int' and 'NoneType' (line 2) [Python 2 ordered values of different types (None < 1); Python 3 refuses to]",
    );
    assert.deepEqual(value(run(py('import urllib2', 'def GenerateConfig(c):', '  return {}'))), "refused: ModuleNotFoundError: No module named 'urllib2' (line 1) [a Python 2 module: Python 3 renamed or removed it]");
  });
});

/** This process's sandbox children (the Pyodide processes this file started), by pid. */
function sandboxChildren(): number[] {
  const child = realpathSync(join(process.cwd(), 'server', 'dm-python', 'child.mjs'));
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1]);
      if (cmd.includes(child) && ppid === process.pid && !isGone(Number(d))) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A process that has exited (a zombie waiting to be reaped counts as gone). */
function isGone(pid: number): boolean {
  try {
    return /State:\s+Z/.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

/** Polls (no fixed sleep) until `done` or `tries` run out; answers whether it became true. */
async function eventually(done: () => boolean, tries = 400): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (done()) return true;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  return done();
}

describe('Python sandbox: none of the server is inside', () => {
  test("the sandbox process holds none of the server's environment, and a template reads none of it", async () => {
    const planted = { NEXTAUTH_SECRET: 'planted-nextauth-7f3a', KEELSON_SECRET_KEY: 'planted-secret-key-7f3a', DATABASE_URL: 'postgres://planted:7f3a@db/keelson', KEELSON_PLANTED_OTHER: 'planted-other-7f3a' };
    const before = new Set(sandboxChildren());
    Object.assign(process.env, planted);
    const own = createPythonSandbox({ runMs: 120_000, processes: 1 });
    try {
      const r = own.run(
        [
          'import os',
          'def GenerateConfig(c):',
          '  seen = dict(os.environ)',
          '  try:',
          '    seen["/proc/self/environ"] = open("/proc/self/environ").read()',
          '  except Exception as e:',
          '    seen["/proc/self/environ"] = type(e).__name__',
          "  return {'resources': [], 'seen': seen}",
        ].join('\n'),
        ctx('tenant-env'),
        {},
      );
      assert.equal(r.ok, true, JSON.stringify(r));
      const text = JSON.stringify(r);
      for (const [name, value] of Object.entries(planted)) {
        assert.ok(!text.includes(value), `${name} reached the template`);
        assert.ok(!text.includes(name), `${name} is set in the template's environment`);
      }
      // And the process itself, as the kernel holds it: what a template that escaped the interpreter could read.
      const pids = sandboxChildren().filter((p) => !before.has(p));
      assert.ok(pids.length > 0, 'the sandbox process was found');
      for (const pid of pids) {
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
        for (const [name, value] of Object.entries(planted)) assert.ok(!environ.includes(value), `${name} is in the environment of sandbox process ${pid}`);
      }
    } finally {
      for (const name of Object.keys(planted)) delete process.env[name];
      await own.close();
    }
  });

  test('the import blocker cannot be taken away: no pyodide_js or js by sys.meta_path, __import__, importlib, the import hook or sys.modules', () => {
    const r = run(
      [
        'import sys, gc, importlib, importlib.util',
        'def GenerateConfig(c):',
        '  out = {}',
        '  def attempt(name, f):',
        '    try:',
        '      got = f()',
        '      out[name] = "reached" if got else "refused"',
        '    except BaseException:',
        '      out[name] = "refused"',
        '  # the hook that serves JavaScript modules, taken straight from sys.meta_path',
        '  attempt("import hook", lambda: [p for m in sys.meta_path for p in getattr(m, "jsproxies", {}).values()])',
        '  sys.meta_path[:] = [m for m in sys.meta_path if type(m).__name__ != "_Blocker"]',
        '  for name in ["js", "pyodide_js"]:',
        '    sys.modules.pop(name, None)',
        '    attempt("import " + name, lambda: __import__(name))',
        '    attempt("importlib " + name, lambda: importlib.import_module(name))',
        '    attempt("find_spec " + name, lambda: importlib.util.find_spec(name))',
        '  attempt("sys.modules", lambda: [m for m in sys.modules if m in ("js", "pyodide_js")])',
        '  attempt("gc", lambda: [o for o in gc.get_objects() if type(o).__name__ == "module" and o.__name__ in ("js", "pyodide_js")])',
        "  return {'resources': [], 'probe': out}",
      ].join('\n'),
    );
    assert.equal(r.ok, true, JSON.stringify(r));
    const probe = (r.ok && (r.value as { probe: Record<string, string> }).probe) || {};
    assert.ok(Object.keys(probe).length >= 9, JSON.stringify(probe));
    for (const [route, outcome] of Object.entries(probe)) assert.equal(outcome, 'refused', `${route}: ${outcome}`);
  });
});

describe('Python sandbox: time is the sandbox’s own, per expansion', () => {
  test("one expansion's Python templates share the limit: the one that runs it out is stopped, named, with the sandbox's limit as the reason", async () => {
    // The parent template has most of the 4 s to itself however loaded the machine; the six children spin 6 s of wall time.
    const own = createPythonSandbox({ runMs: 4000, processes: 1 });
    usePythonRunner(own.run);
    try {
      // Each child template stays under the limit on its own; together they would not.
      const spin = "import time\ndef GenerateConfig(c):\n  t = time.time()\n  while time.time() - t < 1.0:\n    pass\n  return {'resources': []}\n";
      const parent = "def GenerateConfig(c):\n  return {'resources': [{'name': 'w%d' % i, 'type': 'spin.py'} for i in range(6)]}\n";
      const r = expandDeployment({ config: 'resources:\n- {name: top, type: parent.py}\n', imports: { 'parent.py': parent, 'spin.py': spin } }, { deployment: 'd', project: 'tenant-time' });
      assert.equal(r.errors.length, 1, JSON.stringify(r.errors));
      assert.equal(r.errors[0]!.code, 'limit');
      assert.match(r.errors[0]!.message, /Python template 'spin\.py' ran over the Python sandbox's time limit of 4 s, which one deployment's Python templates share, and was stopped/);
    } finally {
      usePythonRunner(undefined);
      await own.close();
    }
  });
});

describe('Python sandbox: a pool of warm processes', () => {
  test("a tenant's expansions reuse one warm process, each starting from a clean interpreter; a timeout recycles it; closing ends them all", async () => {
    // 5 s: a clean start and a short template fit many times over on a loaded machine; the endless loop does not.
    const own = createPythonSandbox({ runMs: 5000, warm: true });
    try {
      const mark = "import json\ndef GenerateConfig(c):\n  seen = getattr(json, 'keelson_mark', None)\n  json.keelson_mark = c.properties['n']\n  return {'resources': [], 'seen': seen}\n";
      const seen = (n: number, expansion: number) => {
        const r = own.run(mark, { ...ctx('tenant-pool', { n }), expansion }, {});
        assert.equal(r.ok, true, JSON.stringify(r));
        return (r.ok && (r.value as { seen: unknown }).seen) ?? null;
      };
      // One expansion's runs share an interpreter; the next expansion's start clean.
      assert.equal(seen(1, 101), null);
      assert.equal(seen(2, 101), 1);
      assert.equal(seen(3, 102), null);
      assert.equal(seen(4, 103), null);
      const { started } = own.stats();
      assert.ok(started <= 2, `${started} processes started for one tenant's three expansions (one in use, one spare)`);

      const stuck = own.run('def GenerateConfig(c):\n  while True:\n    pass\n', { ...ctx('tenant-pool'), expansion: 104 }, {});
      assert.deepEqual(stuck, { ok: false, message: 'ran over its time limit of 5 s and was stopped', reason: 'limit', timedOut: true });
      assert.equal(seen(5, 105), null);
      assert.ok(own.stats().started > started, 'the stopped process was replaced');

      const alive = own.stats().pids;
      assert.ok(alive.length > 0);
      await own.close();
      assert.ok(await eventually(() => alive.every(isGone)), `still running after close: ${alive.filter((p) => !isGone(p)).join(', ')}`);
    } finally {
      await own.close();
    }
  });

  test('a keeper thread stopped mid-run (its resolver thread stopped at its own limit) takes its Python process with it', async () => {
    const before = new Set(sandboxChildren());
    // A module worker, as the resolver's threads are (worker-boot.mjs): the TypeScript loader, then the sandbox.
    const worker = new Worker(
      new URL(
        'data:text/javascript,' +
          encodeURIComponent(`
            import { parentPort } from 'node:worker_threads';
            import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
            register();
            const { createPythonSandbox } = await import(${JSON.stringify(pathToFileURL(join(process.cwd(), 'server', 'dm-python', 'index.ts')).href)});
            const sb = createPythonSandbox({ runMs: 120000, processes: 1 });
            const ctx = { env: { project: 'tenant-orphan', name: 'r', type: 't.py' }, properties: {}, imports: {}, name: 'r', type: 't.py' };
            sb.run("def GenerateConfig(c):\\n  return {'resources': []}\\n", ctx, {});
            parentPort.postMessage('ready');
            sb.run('def GenerateConfig(c):\\n  while True:\\n    pass\\n', ctx, {});
          `),
      ),
    );
    let spinning: number | undefined;
    try {
      await new Promise<void>((ok, no) => {
        worker.once('message', () => ok());
        worker.once('error', no);
      });
      // The process of the spinning run: this process's newest sandbox child, busy.
      assert.ok(
        await eventually(() => {
          spinning = sandboxChildren().find((p) => !before.has(p) && /State:\s+R/.test(readFileSync(`/proc/${p}/status`, 'utf8')));
          return spinning !== undefined;
        }),
        'the spinning template was seen running',
      );
      await worker.terminate();
      assert.ok(await eventually(() => isGone(spinning!)), `sandbox process ${spinning} still runs after its keeper thread was stopped`);
    } finally {
      await worker.terminate();
      // Never leave a spinning process behind, even when the test fails.
      for (const p of sandboxChildren()) if (!before.has(p)) process.kill(p, 'SIGKILL');
    }
  });
});
