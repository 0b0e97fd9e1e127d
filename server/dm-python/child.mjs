// The Python sandbox process for Deployment Manager templates. Plain
// JavaScript: it is started by `node` directly (no TypeScript loader), under
// the permission model (reads only Pyodide's folder, PyYAML's, this file and its modules; no writes,
// child processes, workers or addons), without code generation from strings,
// and — by the parent — in a network namespace of its own. Pyodide's
// interpreter can reach JavaScript objects, so these process limits, not the
// Python-level blocks below, are what keep a template from the host.
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on
// stdout. `{ready: true}` is written once the interpreter is up.
import { constants as fsConstants, readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { PY2_COMPILE } from './py2-compile.mjs';
import { PY2_RUNTIME } from './py2-runtime.mjs';

const write = process.stdout.write.bind(process.stdout);
const answer = (m) => write(`${JSON.stringify(m)}\n`);

// Pyodide's NODEFS asks process.binding for fs flag constants; the permission
// model refuses process.binding, so give it exactly that and nothing else.
process.binding = (name) => {
  if (name === 'constants') return { fs: fsConstants };
  throw new Error(`process.binding('${name}') is not available in the sandbox`);
};

const indexURL = process.argv[2];
const { loadPyodide } = await import(new URL('pyodide.mjs', `file://${indexURL}`).href);
let printed = '';
const capture = (s) => {
  if (printed.length < 4000) printed += `${s}\n`;
};
const py = await loadPyodide({ indexURL, jsglobals: Object.create(null), stdout: capture, stderr: capture });

// Nothing a template could reach through a JavaScript object should talk to the world.
for (const k of ['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest', 'Request', 'Response', 'navigator']) {
  try {
    delete globalThis[k];
  } catch {}
}
for (const k of ['getBuiltinModule', 'dlopen', '_linkedBinding', 'kill', 'chdir', 'setuid', 'setgid']) {
  try {
    process[k] = () => {
      throw new Error(`process.${k} is not available in the sandbox`);
    };
  } catch {}
}
// A JavaScript function installed as Error.prepareStackTrace is handed the
// receivers of the frames on the stack (the classic way from a harmless
// object to the global one): fix it to nothing before any template runs.
Object.defineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });

// PyYAML's package folder on the host (argv[3], empty when the server has none). Its Python files are
// copied into the interpreter's own memory and made read-only there: a host folder mounted into the
// interpreter would let a template's write attempt (refused by the permission model) kill it.
const pyyamlDir = process.argv[3];
if (pyyamlDir) {
  const into = '/keelson/pyyaml/yaml';
  py.FS.mkdirTree(into);
  for (const name of readdirSync(pyyamlDir)) {
    if (!name.endsWith('.py')) continue;
    py.FS.writeFile(`${into}/${name}`, readFileSync(`${pyyamlDir}/${name}`));
    py.FS.chmod(`${into}/${name}`, 0o444);
  }
  py.FS.chmod(into, 0o555);
}
py.globals.set('_PYYAML_MISSING', pyyamlDir ? undefined : process.argv[4]);

// Jinja2 and MarkupSafe (argv[5]: {"jinja2": dir, "markupsafe": dir}, or empty when the server has
// none) and Keelson's renderer for DM's Jinja templates (argv[6]), copied in read-only as PyYAML is.
const jinjaPackages = process.argv[5] ? JSON.parse(process.argv[5]) : null;
function copyPackage(from, into) {
  py.FS.mkdirTree(into);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name !== '__pycache__') copyPackage(`${from}/${entry.name}`, `${into}/${entry.name}`);
    } else if (entry.name.endsWith('.py')) {
      py.FS.writeFile(`${into}/${entry.name}`, readFileSync(`${from}/${entry.name}`));
      py.FS.chmod(`${into}/${entry.name}`, 0o444);
    }
  }
  py.FS.chmod(into, 0o555);
}
if (jinjaPackages) {
  for (const [name, dir] of Object.entries(jinjaPackages)) copyPackage(dir, `/keelson/site/${name}`);
  py.FS.writeFile('/keelson/site/keelson_jinja.py', readFileSync(process.argv[6]));
  py.FS.chmod('/keelson/site/keelson_jinja.py', 0o444);
}
py.globals.set('_JINJA_MISSING', jinjaPackages ? undefined : process.argv[7]);

py.runPython(String.raw`
import builtins, json, sys, os, traceback, importlib

# DM's templates were Python 2: keep the names they use working.
builtins.xrange = range
builtins.unicode = str
builtins.basestring = str
builtins.long = int

class _Context(object):
    def __init__(self, env, properties, imports):
        self.env = env
        self.properties = properties
        self.imports = imports

# PyYAML is the real one, read from the host (mounted above, read-only: the process may write nothing);
# imported now, so it is part of the baseline every expansion is reset to.
sys.dont_write_bytecode = True
if _PYYAML_MISSING is None:
    sys.path.insert(0, '/keelson/pyyaml')
    import yaml

# Jinja2 (for DM's .jinja templates) from the host, imported now so it is part of the baseline.
if _JINJA_MISSING is None:
    sys.path.insert(0, '/keelson/site')
    import keelson_jinja
    sys.path.remove('/keelson/site')

def _keelson_jinja(payload):
    req = json.loads(payload)
    if _JINJA_MISSING is not None:
        return json.dumps({'ok': False, 'reason': 'unavailable', 'message': _JINJA_MISSING})
    return json.dumps(keelson_jinja.render(req))

_BLOCKED = {'js', 'pyodide_js', 'pyodide', 'micropip', '_pyodide', '_pyodide_core', 'pyodide.ffi', 'pyodide.http'}
class _Blocker(object):
    def find_spec(self, name, path=None, target=None):
        if name in _BLOCKED or name.split('.')[0] in _BLOCKED:
            raise ImportError("module '%s' is not available in the sandbox" % name)
        if _PYYAML_MISSING is not None and name.split('.')[0] == 'yaml':
            raise ModuleNotFoundError(_PYYAML_MISSING, name='yaml')
        return None
for _m in list(sys.modules):
    if _m in _BLOCKED or _m.split('.')[0] in _BLOCKED:
        del sys.modules[_m]
sys.meta_path.insert(0, _Blocker())

_runs = [0]
_scope = [None]

def _snapshot():
    '''What a new scope starts from: the modules loaded now and what each module binds.'''
    mods = dict(sys.modules)
    return {
        'modules': mods,
        'dicts': {name: dict(m.__dict__) for name, m in mods.items() if m is not None},
        'path': list(sys.path),
        'meta_path': list(sys.meta_path),
    }

def _reset():
    '''Back to the snapshot: one scope (one expansion) leaves nothing bound for the next.
    This is for determinism inside one tenant's process; tenants never share a process.'''
    base = _baseline
    for name in [m for m in sys.modules if m not in base['modules']]:
        del sys.modules[name]
    for name, m in base['modules'].items():
        sys.modules[name] = m
        saved = base['dicts'].get(name)
        if saved is None:
            continue
        now = m.__dict__
        # Identity, not ==: a value a template planted may define __eq__.
        if len(now) != len(saved) or any(now.get(k, _reset) is not v for k, v in saved.items()):
            now.clear()
            now.update(saved)
    sys.path[:] = base['path']
    sys.meta_path[:] = base['meta_path']
    importlib.invalidate_caches()

def _where(tb, template):
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == template:
            line = frame.lineno
    return line

def _keelson_run(payload):
    req = json.loads(payload)
    # Runs of one scope (one expansion) share the interpreter; a run without one has it to itself.
    run_scope = req.get('scope')
    if _runs[0] > 0 and (run_scope is None or run_scope != _scope[0]):
        _reset()
    _scope[0] = run_scope
    _runs[0] += 1
    root = '/keelson/run%d' % _runs[0]
    os.makedirs(root)
    for name, content in req['modules'].items():
        if not name.endswith('.py') or name.startswith('/') or '..' in name.split('/'):
            continue
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(content)
    sys.path.insert(0, root)
    importlib.invalidate_caches()
    template = req['template']
    try:
        py2 = _Py2Output(template, root, run_scope)
        scope = {'__name__': template.rsplit('/', 1)[-1].rsplit('.', 1)[0], '__builtins__': py2.builtins}
        ctx = req['context']
        context = _Context(ctx.get('env'), ctx.get('properties'), ctx.get('imports'))
        try:
            with py2:
                exec(_py2_compile(req['source'], template), scope)
                generate = scope.get('GenerateConfig')
                if not callable(generate):
                    return json.dumps({'ok': False, 'message': "the template defines no GenerateConfig(context) function"})
                out = generate(context)
        except SyntaxError as e:
            own = e.filename == template
            return json.dumps({'ok': False, 'message': 'SyntaxError: %s (%sline %s)' % (
                e.msg, '' if own else '%s ' % e.filename.replace(root + '/', ''), e.lineno)})
        except BaseException as e:
            line = _where(e.__traceback__, template)
            text = ''.join(traceback.format_exception_only(type(e), e)).strip()
            return json.dumps({'ok': False, 'message': text + (' (line %d)' % line if line else '') + _py2_hint(text)})
        refused = py2.refusal()
        if refused:
            return json.dumps({'ok': False, 'message': refused})
        if isinstance(out, str):
            return json.dumps({'ok': True, 'value': out})
        try:
            return json.dumps({'ok': True, 'value': out}, default=_py2_json)
        except (TypeError, ValueError) as e:
            return json.dumps({'ok': False, 'message': 'GenerateConfig returned something that is neither YAML text nor plain data: %s' % e})
    finally:
        if root in sys.path:
            sys.path.remove(root)
        for m in [m for m in sys.modules if m not in _baseline['modules']]:
            f = getattr(sys.modules[m], '__file__', None) or ''
            if f.startswith(root + '/'):
                del sys.modules[m]
`);
// DM's templates were Python 2; this interpreter is Python 3. The compatibility layer every template
// and helper module is compiled through (issue 36): kept apart from the sandbox's own code above, in
// two modules run in order into the same globals.
py.runPython(PY2_COMPILE);
py.runPython(PY2_RUNTIME);
// The JavaScript modules go: with them registered, any template that found
// the import hook (sys.meta_path) could take `pyodide_js` — the interpreter's
// whole API — out of it, blocker or no blocker.
py.unregisterJsModule('js');
py.unregisterJsModule('pyodide_js');
py.runPython("_baseline = _snapshot()\n_baseline['dicts']['__main__']['_baseline'] = _baseline");
const run = py.globals.get('_keelson_run');
const jinja = py.globals.get('_keelson_jinja');

answer({ ready: true });
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line) continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    answer({ ok: false, message: 'the sandbox received a malformed request' });
    continue;
  }
  printed = '';
  try {
    const job = JSON.stringify({ ...req.job, scope: req.scope ?? null });
    const out = JSON.parse(req.job.kind === 'jinja' ? jinja(job) : run(job));
    answer({ id: req.id, ...out });
  } catch (e) {
    answer({ id: req.id, ok: false, message: `the Python sandbox failed: ${e instanceof Error ? e.message.split('\n').slice(-2).join(' ').trim() : String(e)}` });
  }
}
process.exit(0);
