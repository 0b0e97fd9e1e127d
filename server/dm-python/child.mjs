// The Python sandbox process for Deployment Manager templates. Plain
// JavaScript: it is started by `node` directly (no TypeScript loader), under
// the permission model (reads only Pyodide's folder, PyYAML's and this file; no writes,
// child processes, workers or addons), without code generation from strings,
// and — by the parent — in a network namespace of its own. Pyodide's
// interpreter can reach JavaScript objects, so these process limits, not the
// Python-level blocks below, are what keep a template from the host.
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on
// stdout. `{ready: true}` is written once the interpreter is up.
import { constants as fsConstants, readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

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
// and helper module is compiled through (issue 36): kept apart from the sandbox's own code above.
const PY2_COMPAT = String.raw`
# ---- Python 2 as DM ran it (issue 36) --------------------------------------------------------
# DM ran .py templates under Python 2.7; this interpreter is Python 3. What a template means must
# not change with the interpreter, so every template and helper module is compiled through
# _py2_compile: Python 2 statements and literals are rewritten token by token as the Python 3 that
# means the same (never a text search, which would also hit strings and comments), and the syntax
# tree is rewritten so that '/' on two integers floors and a dict's keys()/values()/items() are lists,
# as they were in Python 2. Template code also sees Python 2's builtins (range/map/filter/zip give
# lists, round() rounds half away from zero and gives a float, str() of a float has 12 digits) and
# modules (math, base64, hashlib, renamed ones); library code (PyYAML, the standard library) keeps
# Python 3's. What it does not cover fails with Python 3's error and a note naming the Python 2 habit.
import ast as _py2_ast, io as _py2_io, tokenize as _py2_tok, warnings as _py2_warnings
import decimal as _py2_decimal, functools as _py2_functools, itertools as _py2_itertools, re as _py2_re


def _py2_ur(token):
    '''A Python 2 ur'' literal as a Python 3 one: raw, but for its \\u and \\U escapes.'''
    body = token[1:].lstrip('rR')
    q = 3 if body[:3] in ('"""', "'''") else 1
    value = body[q:-q].encode('raw_unicode_escape').decode('raw_unicode_escape')
    if '\n' not in value:
        return repr(value)
    # Keep its lines where they were.
    return '"""' + value.replace('\\', '\\\\').replace('"', '\\"').replace('\r', '\\r') + '"""'


def _py2_tabs(source):
    '''Indentation as Python 2 read it: a tab reaches the next multiple of 8 columns, mixed with spaces or
    not. Python 3 refuses a mix it cannot read one way, so then each line's indentation is written in
    spaces (lines inside a string keep theirs: they are text).'''
    if '\t' not in source:
        return source
    try:
        for _t in _py2_tok.generate_tokens(_py2_io.StringIO(source).readline):
            pass
        return source  # Python 3 reads it, and reads it as Python 2 did
    except (SyntaxError, _py2_tok.TokenError):
        pass
    lines = list(_py2_io.StringIO(source))
    spaced = []
    for line in lines:
        rest = line.lstrip(' \t\f')
        col = 0
        for ch in line[:len(line) - len(rest)]:
            col = 0 if ch == '\f' else (col // 8 + 1) * 8 if ch == '\t' else col + 1
        spaced.append(' ' * col + rest)
    try:
        inside = set()
        for t in _py2_tok.generate_tokens(_py2_io.StringIO(''.join(spaced)).readline):
            if t.type == _py2_tok.STRING and t.end[0] > t.start[0]:
                inside.update(range(t.start[0] + 1, t.end[0] + 1))
    except (SyntaxError, _py2_tok.TokenError):
        return source  # compile() names the error
    return ''.join(lines[i] if i + 1 in inside else spaced[i] for i in range(len(lines)))


def _py2_translate(source, filename):
    '''Python 2 statements rewritten as the Python 3 that means the same, keeping every line where it was;
    and the tuple parameters it replaced by names, {name: the tuple's source}, for _Py2Tree to unpack.'''
    source = _py2_tabs(source)
    starts = [0]
    for l in _py2_io.StringIO(source):  # lines as the tokenizer reads them (split at \n only)
        starts.append(starts[-1] + len(l))
    at = lambda pos: starts[pos[0] - 1] + pos[1]
    text, ur = source, set()
    while True:
        try:
            toks = list(_py2_tok.generate_tokens(_py2_io.StringIO(text).readline))
            break
        except _py2_tok.TokenError as e:
            msg, (line, col) = e.args
            if "'u' and 'r'" not in msg or (line, col - 1) in ur:
                return source, {}  # compile() names the error
            ur.add((line, col - 1))
            text = text[:at((line, col - 1))] + ' ' + text[at((line, col)):]
        except SyntaxError:
            return source, {}
    N, OP, NUM = _py2_tok.NAME, _py2_tok.OP, _py2_tok.NUMBER
    skip = (_py2_tok.COMMENT, _py2_tok.NL, _py2_tok.INDENT, _py2_tok.DEDENT)
    sig = [t for t in toks if t.type not in skip]
    future = set()
    for i, t in enumerate(sig[:-3]):
        if t.string == 'from' and sig[i + 1].string == '__future__' and sig[i + 2].string == 'import':
            j = i + 3
            while j < len(sig) and sig[j].type not in (_py2_tok.NEWLINE, _py2_tok.ENDMARKER):
                if sig[j].type == N:
                    future.add(sig[j].string)
                j += 1
    edits = []  # (start offset, end offset, text)
    tuples = {}

    def statement(i):
        '''Indexes of the top-level commas (and 'in's) of the simple statement starting at sig[i], and where it ends.'''
        depth, commas, ins, j = 0, [], [], i + 1
        while j < len(sig):
            t = sig[j]
            if t.type == OP and t.string in '([{':
                depth += 1
            elif t.type == OP and t.string in ')]}':
                depth -= 1
            elif depth == 0 and (t.type in (_py2_tok.NEWLINE, _py2_tok.ENDMARKER) or (t.type == OP and t.string in (';', ':'))):
                break
            elif depth == 0 and t.type == OP and t.string == ',':
                commas.append(j)
            elif depth == 0 and t.type == N and t.string == 'in':
                ins.append(j)
            j += 1
        return commas, ins, j

    def _closes(j):
        '''Index of the bracket closing the one at sig[j].'''
        depth = 0
        for k in range(j, len(sig)):
            if sig[k].type == OP and sig[k].string in '([{':
                depth += 1
            elif sig[k].type == OP and sig[k].string in ')]}':
                depth -= 1
                if depth == 0:
                    return k
        return None

    def _call_only(j, k):
        '''Whether the brackets sig[j]..sig[k] hold a keyword or starred argument: a call, not an expression.'''
        depth = 0
        for m in range(j + 1, k):
            u = sig[m]
            if u.type == OP and u.string in '([{':
                depth += 1
            elif u.type == OP and u.string in ')]}':
                depth -= 1
            elif depth == 0 and u.type == OP and u.string in ('*', '**') and sig[m - 1].string in ('(', ','):
                return True
            elif depth == 0 and u.type == N and sig[m + 1].string == '=' and sig[m - 1].string in ('(', ','):
                return True
        return False

    ticks = []  # open backticks: the bracket depth each opened at
    depth = 0
    for i, t in enumerate(sig):
        prev = sig[i - 1] if i else None
        attr = prev is not None and prev.type == OP and prev.string == '.'
        # Where a statement starts: Python 2's print and exec were statements, so only there are they.
        starts_statement = prev is None or prev.type == _py2_tok.NEWLINE or (depth == 0 and prev.type == OP and prev.string in (';', ':'))
        if t.type == OP and t.string in '([{':
            depth += 1
        elif t.type == OP and t.string in ')]}':
            depth -= 1
        if t.type == OP and t.string == '<>':
            edits.append((at(t.start), at(t.end), '!='))
        elif t.type == OP and t.string == '\x60':
            if ticks and ticks[-1] == depth:
                ticks.pop()
                edits.append((at(t.start), at(t.end), ')'))
            else:
                ticks.append(depth)
                edits.append((at(t.start), at(t.end), 'repr('))
        elif t.type == NUM and _py2_re.fullmatch(r'0[0-7]+', t.string):
            edits.append((at(t.start), at(t.end), '0o' + t.string[1:]))
        elif t.type == N and t.string in ('L', 'l') and prev is not None and prev.type == NUM and prev.end == t.start:
            edits.append((at(t.start), at(t.end), ''))
        elif t.type == N and t.string == 'except' and not attr:
            commas, _ins, end = statement(i)
            if commas and end < len(sig) and sig[end].string == ':':
                c = sig[commas[0]]
                edits.append((at(c.start), at(c.end), ' as'))
        elif t.type == N and t.string == 'raise' and not attr:
            commas, _ins, end = statement(i)
            if commas:
                last = sig[end - 1]
                edits.append((at(t.end), at(t.end), ' __py2_raise__('))
                if len(commas) > 1:
                    c = sig[commas[1]]
                    edits.append((at(c.start), at(c.end), ').with_traceback('))
                edits.append((at(last.end), at(last.end), ')'))
        elif t.type == N and t.string == 'exec' and starts_statement:
            nxt = sig[i + 1]
            if nxt.type == OP and nxt.string in ('=', '.', ')', ']', ',', ':'):
                continue
            _commas, ins, end = statement(i)
            last = sig[end - 1]
            if nxt.string == '(' and _closes(i + 1) == end - 1:
                continue  # exec(code, ns): Python 2's tuple form is Python 3's call
            edits.append((at(t.start), at(t.end), 'exec('))
            if ins:
                c = sig[ins[0]]
                edits.append((at(c.start), at(c.end), ','))
            edits.append((at(last.end), at(last.end), ')'))
        elif t.type == N and t.string == 'print' and starts_statement and 'print_function' not in future:
            nxt = sig[i + 1]
            if nxt.type == OP and nxt.string in ('=', '.', ')', ']', ','):
                continue  # a name, as in Python 3 code that prints with print_function's print
            commas, _ins, end = statement(i)
            if end == i + 1:
                edits.append((at(t.start), at(t.end), 'print()'))
                continue
            if nxt.string == '(' and _closes(i + 1) == end - 1 and _call_only(i + 1, end - 1):
                continue  # print(x, end=''), print(*xs): Python 3's call, which Python 2 refused; left as it is
            # Insertions only, so that whatever else the statement holds is translated too.
            edits.append((at(t.start), at(t.end), 'print('))
            last, tail = sig[end - 1], ''
            if commas and commas[-1] == end - 1:  # print a,  ->  print(a, end=' '): no newline
                edits.append((at(last.start), at(last.end), ", end=' '"))
                commas = commas[:-1]
            if sig[i + 1].type == OP and sig[i + 1].string == '>>':  # print >>f, a  ->  print(a, file=f)
                stop = sig[commas[0]] if commas else last
                f = source[at(sig[i + 2].start):at(stop.start if commas else stop.end)]
                edits.append((at(sig[i + 1].start), at(stop.end) if commas else at(stop.end), '' if commas else 'file=' + f))
                tail = ', file=' + f if commas else ''
            edits.append((at(last.end), at(last.end), tail + ')'))
        elif t.type == N and t.string in ('def', 'lambda') and not attr:
            # Python 2's tuple parameters, def f(a, (b, c)) and lambda (k, v): a name each, unpacked by _Py2Tree.
            j = i + 2 if t.string == 'def' else i
            if t.string == 'def' and not (j < len(sig) and sig[j].string == '('):
                continue
            d = 0
            while j + 1 < len(sig):
                j += 1
                u = sig[j]
                if u.type == OP and u.string in '([{':
                    if u.string == '(' and d == 0 and sig[j - 1].string in ('(', ',', 'lambda'):
                        close = _closes(j)
                        name = '__py2_t%d__' % (len(tuples) + 1)
                        tuples[name] = source[at(u.start):at(sig[close].end)]
                        edits.append((at(u.start), at(sig[close].end), name))
                        j = close
                        continue
                    d += 1
                elif u.type == OP and u.string in ')]}':
                    d -= 1
                    if d < 0:
                        break
                elif d == 0 and u.type == OP and u.string == ':' and t.string == 'lambda':
                    break
                elif u.type in (_py2_tok.NEWLINE, _py2_tok.ENDMARKER):
                    break
    for i, t in enumerate(sig):
        if t.type == _py2_tok.STRING and (t.start[0], t.start[1] - 1) in ur:
            edits.append((at(t.start) - 1, at(t.end), _py2_ur(t.string)))
    out = source
    for a, b, text in sorted(edits, key=lambda e: e[0], reverse=True):
        out = out[:a] + text + out[b:]
    return out, tuples


_PY2_METHODS = ('encode', 'decode', 'keys', 'values', 'items', 'iteritems', 'itervalues', 'iterkeys', 'has_key', 'viewkeys', 'viewvalues', 'viewitems')


class _Py2Tree(_py2_ast.NodeTransformer):
    ''''/' as Python 2's (floor on two integers), and Python 2's dict and list methods, through helpers.'''

    def __init__(self, true_division, tuples):
        self.true_division = true_division
        self.tuples = tuples
        self.temps = 0

    def _unpack(self, args, node):
        '''The tuple parameters _py2_translate named: [(their target, the name)].'''
        out = []
        for a in args.posonlyargs + args.args:
            if a.arg in self.tuples:
                target = _py2_ast.parse(self.tuples[a.arg], mode='eval').body
                for n in _py2_ast.walk(target):
                    if isinstance(n, (_py2_ast.Name, _py2_ast.Tuple, _py2_ast.List)):
                        n.ctx = _py2_ast.Store()
                _py2_ast.copy_location(target, node)
                _py2_ast.fix_missing_locations(target)
                out.append((target, a.arg))
        return out

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        # def f(a, (b, c)): ...  ->  def f(a, t): (b, c) = t; ...
        first = [
            _py2_ast.fix_missing_locations(_py2_ast.copy_location(_py2_ast.Assign([target], _py2_ast.Name(name, _py2_ast.Load())), node))
            for target, name in self._unpack(node.args, node)
        ]
        node.body = first + node.body
        return node

    def visit_Lambda(self, node):
        self.generic_visit(node)
        # lambda (k, v): body  ->  lambda t: [body for (k, v) in [t]][0]
        unpack = self._unpack(node.args, node)
        if unpack:
            gens = [_py2_ast.comprehension(target, _py2_ast.List([_py2_ast.Name(name, _py2_ast.Load())], _py2_ast.Load()), [], 0) for target, name in unpack]
            node.body = _py2_ast.Subscript(_py2_ast.ListComp(node.body, gens), _py2_ast.Constant(0), _py2_ast.Load())
            _py2_ast.copy_location(node.body, node)
            _py2_ast.fix_missing_locations(node)
        return node

    def _div(self, left, right, node):
        call = _py2_ast.Call(_py2_ast.Name('__py2_div__', _py2_ast.Load()), [left, right], [])
        return _py2_ast.copy_location(call, node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, _py2_ast.Div) and not self.true_division:
            return self._div(node.left, node.right, node)
        if isinstance(node.op, _py2_ast.Mod):  # '%s' % 0.1: a float as Python 2's str() wrote it
            call = _py2_ast.Call(_py2_ast.Name('__py2_mod__', _py2_ast.Load()), [node.left, node.right], [])
            return _py2_ast.copy_location(call, node)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == 'message' and isinstance(node.ctx, _py2_ast.Load):  # Python 2's exception.message
            call = _py2_ast.Call(_py2_ast.Name('__py2_message__', _py2_ast.Load()), [node.value], [])
            return _py2_ast.copy_location(call, node)
        return node

    def _temp(self):
        self.temps += 1
        return '__py2_t%d__' % self.temps

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, _py2_ast.Div) or self.true_division:
            return node
        L, S = _py2_ast.Load(), _py2_ast.Store()
        target, pre = node.target, []
        if isinstance(target, _py2_ast.Name):
            read, write = _py2_ast.Name(target.id, L), _py2_ast.Name(target.id, S)
        elif isinstance(target, _py2_ast.Attribute):
            obj = self._temp()
            pre.append(_py2_ast.Assign([_py2_ast.Name(obj, S)], target.value))
            read = _py2_ast.Attribute(_py2_ast.Name(obj, L), target.attr, L)
            write = _py2_ast.Attribute(_py2_ast.Name(obj, L), target.attr, S)
        else:  # Subscript: the container and the index are evaluated once, as 'x[i] /= y' does
            obj, key = self._temp(), self._temp()
            pre.append(_py2_ast.Assign([_py2_ast.Name(obj, S)], target.value))
            pre.append(_py2_ast.Assign([_py2_ast.Name(key, S)], target.slice))
            read = _py2_ast.Subscript(_py2_ast.Name(obj, L), _py2_ast.Name(key, L), L)
            write = _py2_ast.Subscript(_py2_ast.Name(obj, L), _py2_ast.Name(key, L), S)
        out = pre + [_py2_ast.Assign([write], self._div(read, node.value, node))]
        for n in out:
            _py2_ast.copy_location(n, node)
            _py2_ast.fix_missing_locations(n)
        return out

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, _py2_ast.Name) and f.id in ('str', 'unicode') and len(node.args) == 1 and not node.keywords:
            # str(x) through whatever str names here: Python 2's text for a float when it is the builtin
            call = _py2_ast.Call(_py2_ast.Name('__py2_str__', _py2_ast.Load()), [f, node.args[0]], [])
            return _py2_ast.copy_location(call, node)
        if isinstance(f, _py2_ast.Attribute) and (
            f.attr in _PY2_METHODS or f.attr == 'format' or (f.attr == 'sort' and any(k.arg == 'cmp' for k in node.keywords))
        ):
            call = _py2_ast.Call(
                _py2_ast.Name('__py2_method__', _py2_ast.Load()),
                [f.value, _py2_ast.Constant(f.attr)] + node.args,
                node.keywords,
            )
            return _py2_ast.copy_location(call, node)
        return node


_py2_compiled = {}  # one expansion's compiled sources: a template that many resources use is compiled once


def _py2_compile(source, filename, mode='exec'):
    '''A Python 2 template's code object, meaning what it meant under Python 2.'''
    key = (source, filename, mode)
    code = _py2_compiled.get(key)
    if code is None:
        code = _py2_compiled[key] = _py2_compile_new(source, filename, mode)
    return code


def _py2_compile_new(source, filename, mode):
    with _py2_warnings.catch_warnings():
        # Python 2 gave none of Python 3's syntax warnings; DM's service failed on anything written to stderr.
        _py2_warnings.simplefilter('ignore')
        text, tuples = _py2_translate(source, filename)
        tree = compile(text, filename, mode, _py2_ast.PyCF_ONLY_AST)
        body = tree.body if mode == 'exec' else []
        future = {a.name for n in body if isinstance(n, _py2_ast.ImportFrom) and n.module == '__future__' for a in n.names}
        tree = _Py2Tree('division' in future, tuples).visit(tree)
        _py2_ast.fix_missing_locations(tree)
        return compile(tree, filename, mode, dont_inherit=True)


def _py2_run(run, code, mode, g, l, b):
    '''exec() and eval() in template code: text is Python 2 too, and runs with the template's builtins.'''
    if g is None:  # the caller's scope, as exec and eval use it
        f = sys._getframe(2)
        g, l = f.f_globals, f.f_locals if l is None else l
    if isinstance(g, dict):
        g.setdefault('__builtins__', b)
    return run(_py2_compile(code, '<string>', mode) if isinstance(code, str) else code, g, g if l is None else l)


def __py2_div__(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return a / b


def __py2_method__(obj, name, *args, **kw):
    if isinstance(obj, dict):
        if name in ('keys', 'values', 'items'):
            return list(getattr(obj, name)(*args, **kw))
        if name in ('iteritems', 'itervalues', 'iterkeys'):
            return iter(getattr(obj, name[4:])(*args, **kw))
        if name in ('viewkeys', 'viewvalues', 'viewitems'):
            return getattr(obj, name[4:])(*args, **kw)
        if name == 'has_key':
            return obj.__contains__(*args, **kw)
    if name in ('encode', 'decode') and isinstance(obj, str):
        return _py2_codec(obj, name, *args, **kw)
    if name == 'format' and isinstance(obj, str):
        args, kw = [_py2_float(a) for a in args], {k: _py2_float(v) for k, v in kw.items()}
    if name == 'sort' and isinstance(obj, list) and 'cmp' in kw:
        cmp = kw.pop('cmp')
        if cmp is not None:
            kw['key'] = _py2_cmp_key(cmp, kw.get('key'))
    return getattr(obj, name)(*args, **kw)


def _py2_float_str(x):
    '''str(x) for a float as Python 2.7 wrote it: 12 significant digits (str(0.1 + 0.2) was '0.3').'''
    if x != x or x in (float('inf'), float('-inf')):
        return repr(x)
    mant, exp = ('%.11e' % x).split('e')
    if int(exp) + 1 <= -4 or int(exp) + 1 > 11:
        return '%se%s%02d' % (mant.rstrip('0').rstrip('.'), '-' if int(exp) < 0 else '+', abs(int(exp)))
    s = '%.12g' % x
    return s if '.' in s else s + '.0'


class _Py2Float(float):
    '''A float that formats as text the way Python 2's str() did; any other format is the float's own.'''
    def __str__(self):
        return _py2_float_str(float(self))

    def __format__(self, spec):
        return _py2_float_str(float(self)) if spec == '' else float.__format__(float(self), spec)


def _py2_float(v):
    return _Py2Float(v) if type(v) is float else v


def __py2_str__(f, x):
    if f is str and type(x) is float:
        return _py2_float_str(x)
    return f(x)


def __py2_mod__(a, b):
    if isinstance(a, str):
        if type(b) is tuple:
            b = tuple(_py2_float(v) for v in b)
        elif type(b) is dict:
            b = {k: _py2_float(v) for k, v in b.items()}
        else:
            b = _py2_float(b)
    return a % b


def __py2_message__(obj):
    '''Python 2's BaseException.message: its one argument, else empty.'''
    try:
        return obj.message
    except AttributeError:
        if isinstance(obj, BaseException):
            return obj.args[0] if len(obj.args) == 1 else ''
        raise


def _py2_oct(n):
    return oct(n).replace('0o', '0') if n else '0'


def _py2_codec(text, name, encoding='ascii', errors='strict'):
    '''Python 2's str.encode/decode: its str was bytes, so both gave str; 'base64' and 'hex' were codecs too.'''
    e = encoding.lower().replace('-', '_')
    if e in ('base64', 'base_64'):
        if name == 'encode':
            return _py2_base64.encodebytes(text.encode('latin-1')).decode('ascii')
        return _py2_text(_py2_base64.decodebytes(text.encode('ascii')))
    if e in ('hex', 'hex_codec'):
        return text.encode('latin-1').hex() if name == 'encode' else _py2_text(bytes.fromhex(text))
    if name == 'decode':
        return text  # already text
    return _py2_text(text.encode(encoding, errors))


def _py2_cmp_key(cmp, key):
    k = _py2_functools.cmp_to_key(cmp)
    return k if key is None else (lambda v: k(key(v)))


def __py2_raise__(kind, value=None):
    '''Python 2's 'raise E, V': V is E's argument, its arguments when a tuple, or the exception itself.'''
    if isinstance(kind, BaseException):
        return kind
    if isinstance(value, kind):
        return value
    if value is None:
        return kind()
    if isinstance(value, tuple):
        return kind(*value)
    return kind(value)


def _py2_round(x, n=0):
    '''Python 2's round(): halves away from zero, on the float's exact value, and always a float.'''
    x = float(x)
    if x != x or x in (float('inf'), float('-inf')) or n > 330:
        return x
    exact = _py2_decimal.Context(prec=1000, rounding=_py2_decimal.ROUND_HALF_UP)
    return float(exact.quantize(_py2_decimal.Decimal(x), _py2_decimal.Decimal(1).scaleb(-n)))


def _py2_map(f, *seqs):
    if len(seqs) == 1:
        return [v for v in seqs[0]] if f is None else [f(v) for v in seqs[0]]
    rows = list(_py2_itertools.zip_longest(*seqs))
    return rows if f is None else [f(*r) for r in rows]


def _py2_filter(f, seq):
    keep = [v for v in seq if (f(v) if f is not None else v)]
    if isinstance(seq, str):
        return ''.join(keep)
    if isinstance(seq, tuple):
        return tuple(keep)
    return keep


def _py2_sorted(seq, cmp=None, key=None, reverse=False):
    if cmp is not None:
        key = _py2_cmp_key(cmp, key)
    return sorted(seq, key=key, reverse=reverse)


def _py2_cmp(a, b):
    return (a > b) - (a < b)


import itertools as _py2_it, string as _py2_string, types as _py2_types
sys.maxint = 2 ** 63 - 1  # DM's 64-bit Python 2 (this interpreter is 32-bit WebAssembly)
for _a, _b in (('izip', zip), ('imap', map), ('ifilter', filter), ('izip_longest', _py2_it.zip_longest)):
    setattr(_py2_it, _a, _b)
for _a, _b in (('StringType', str), ('UnicodeType', str), ('StringTypes', (str,)), ('IntType', int), ('LongType', int),
               ('FloatType', float), ('BooleanType', bool), ('ListType', list), ('DictType', dict), ('TupleType', tuple)):
    setattr(_py2_types, _a, _b)
for _a, _b in (('letters', _py2_string.ascii_letters), ('lowercase', _py2_string.ascii_lowercase),
               ('uppercase', _py2_string.ascii_uppercase), ('join', lambda words, sep=' ': sep.join(words)),
               ('split', lambda s, sep=None, n=-1: s.split(sep, n)), ('strip', lambda s, chars=None: s.strip(chars)),
               ('lower', lambda s: s.lower()), ('upper', lambda s: s.upper()), ('replace', lambda s, a, b, n=-1: s.replace(a, b, n)),
               ('atoi', lambda s, base=10: int(s, base))):
    setattr(_py2_string, _a, _b)


import math as _py2_math, base64 as _py2_base64, hashlib as _py2_hashlib
import urllib, urllib.parse, configparser, queue, pickle, html.parser  # in the baseline: templates import them


def _py2_bytes(v):
    '''Python 2's str was bytes: text where bytes are wanted is its ASCII bytes (other text failed in Python 2 too).'''
    return v.encode('ascii') if isinstance(v, str) else v


def _py2_text(v):
    '''... and bytes handed back are the str they were: text, when ASCII.'''
    if isinstance(v, bytes):
        try:
            return v.decode('ascii')
        except UnicodeDecodeError:
            pass
    return v


def _py2_module(real, **names):
    m = _py2_types.ModuleType(real.__name__)
    m.__dict__.update(real.__dict__)
    m.__dict__.update(names)
    return m


def _py2_modules():
    '''Standard modules whose functions behaved differently in Python 2, as template code imports them
    (library code keeps the real ones): math.floor/ceil gave floats; base64 and hashlib took and gave str.'''
    b64 = {n: (lambda f: lambda s, *a, **k: _py2_text(f(_py2_bytes(s), *a, **k)))(getattr(_py2_base64, n))
           for n in ('b64encode', 'b64decode', 'standard_b64encode', 'standard_b64decode', 'urlsafe_b64encode',
                     'urlsafe_b64decode', 'b32encode', 'b32decode', 'b16encode', 'b16decode', 'encodebytes', 'decodebytes')}
    b64.update(encodestring=b64['encodebytes'], decodestring=b64['decodebytes'])
    hashes = {n: (lambda f: lambda data=b'', *a, **k: f(_py2_bytes(data), *a, **k))(getattr(_py2_hashlib, n))
              for n in ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512')}
    hashes['new'] = lambda name, data=b'', *a, **k: _py2_hashlib.new(name, _py2_bytes(data), *a, **k)
    text_io = _py2_types.ModuleType('StringIO')
    text_io.StringIO = _py2_io.StringIO
    return {
        'math': _py2_module(_py2_math, floor=lambda x: float(_py2_math.floor(x)), ceil=lambda x: float(_py2_math.ceil(x))),
        'base64': _py2_module(_py2_base64, **b64),
        'hashlib': _py2_module(_py2_hashlib, **hashes),
        # Python 2 modules Python 3 renamed.
        'urllib': _py2_module(urllib, **{n: getattr(urllib.parse, n) for n in ('quote', 'quote_plus', 'unquote', 'unquote_plus', 'urlencode')}),
        'StringIO': text_io, 'cStringIO': text_io, 'urlparse': urllib.parse, 'ConfigParser': configparser, 'Queue': queue,
        'cPickle': pickle, 'HTMLParser': html.parser, '__builtin__': builtins,
    }


def _py2_builtins():
    '''The builtins a template's code sees: Python 2's where they behaved differently.'''
    b = dict(builtins.__dict__)
    own = _py2_modules()

    def py2_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in own:
            return own[name]
        return __import__(name, globals, locals, fromlist, level)

    b.update(
        __import__=py2_import,
        range=lambda *a: list(range(*a)),
        xrange=range,
        map=_py2_map,
        filter=_py2_filter,
        zip=lambda *a: list(zip(*a)),
        round=_py2_round,
        sorted=_py2_sorted,
        cmp=_py2_cmp,
        reduce=_py2_functools.reduce,
        unichr=chr,
        oct=_py2_oct,
        exec=lambda code, g=None, l=None: _py2_run(exec, code, 'exec', g, l, b),
        eval=lambda code, g=None, l=None: _py2_run(eval, code, 'eval', g, l, b),
        apply=lambda f, args=(), kw={}: f(*args, **kw),
        intern=sys.intern,
        __py2_str__=__py2_str__,
        __py2_mod__=__py2_mod__,
        __py2_message__=__py2_message__,
        __py2_div__=__py2_div__,
        __py2_method__=__py2_method__,
        __py2_raise__=__py2_raise__,
    )
    return b


class _Py2Loader(object):
    '''Helper modules from the template's imports, compiled as Python 2 like the template.'''

    def __init__(self, path, builtins_):
        self.path, self.builtins = path, builtins_

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        with open(self.path) as f:
            source = f.read()
        module.__dict__['__builtins__'] = self.builtins
        exec(_py2_compile(source, self.path), module.__dict__)


class _Py2Finder(object):
    '''Finds a run's helper modules (written under its root) for _Py2Loader; anything else is not its business.'''
    root = [None, None]  # the run's folder and its builtins, while a template runs

    def find_spec(self, name, path=None, target=None):
        root, b = _Py2Finder.root
        if root is None:
            return None
        base = os.path.join(root, *name.split('.'))
        for file, package in ((base + '.py', False), (os.path.join(base, '__init__.py'), True)):
            if os.path.isfile(file):
                return importlib.util.spec_from_file_location(
                    name, file, loader=_Py2Loader(file, b), submodule_search_locations=[base] if package else None
                )
        return None


import importlib.util
sys.meta_path.insert(1, _Py2Finder())  # after the blocker


class _Py2Stream(_py2_io.TextIOBase):
    '''sys.stdout or sys.stderr while a template runs: what it writes, and the template line that wrote first.'''

    def __init__(self, files):
        self.text, self.line, self.files = '', None, files

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError('write() argument must be str, not %s' % type(s).__name__)
        if s and self.line is None:
            f = sys._getframe(1)
            while f is not None and f.f_code.co_filename not in self.files and not f.f_code.co_filename.startswith(self.files[1] + '/'):
                f = f.f_back
            self.line = (f.f_code.co_filename.replace(self.files[1] + '/', ''), f.f_lineno) if f is not None else None
        if len(self.text) < 65536:
            self.text += s[: 65536 - len(self.text)]
        return len(s)


_py2_printed = {'scope': None, 'text': ''}


class _Py2Output(object):
    '''While a template runs: Python 2's builtins for its modules, and its stdout and stderr captured.'''

    def __init__(self, template, root, scope):
        self.template, self.root, self.scope = template, root, scope
        self.builtins = _py2_builtins()

    def __enter__(self):
        if _py2_printed['scope'] is None or _py2_printed['scope'] != self.scope:
            # A new expansion: nothing printed yet, and nothing compiled by another expansion's templates.
            _py2_printed['scope'], _py2_printed['text'] = self.scope, ''
            _py2_compiled.clear()
        self.saved = sys.stdout, sys.stderr
        self.out, self.err = _Py2Stream((self.template, self.root)), _Py2Stream((self.template, self.root))
        sys.stdout, sys.stderr = self.out, self.err
        _Py2Finder.root = [self.root, self.builtins]
        self.warnings = _py2_warnings.catch_warnings()
        self.warnings.__enter__()
        _py2_warnings.simplefilter('ignore')
        return self

    def __exit__(self, *exc):
        self.warnings.__exit__(*exc)
        sys.stdout, sys.stderr = self.saved
        _Py2Finder.root = [None, None]
        return False

    def refusal(self):
        '''Why DM's service failed this expansion for what its templates wrote, or None when it did not.'''
        def where(stream):
            return ' (%s line %d)' % stream.line if stream.line else ''
        if self.err.text:
            return ('the template wrote to stderr%s: %r. DM\'s service failed an expansion that wrote anything '
                    'to stderr; remove the write' % (where(self.err), self.err.text[:200]))
        if not self.out.text:
            return None
        _py2_printed['text'] += self.out.text
        # DM's service read the expansion's stdout as its result: what templates printed went in front of
        # the YAML it wrote ('config:' first, at the margin). It failed unless the two still parsed as one mapping.
        if len(_py2_printed['text']) > 262144:
            problem = 'Keelson reads back at most 256 KiB of printed text'
        elif 'yaml' not in sys.modules:
            problem = 'PyYAML is not installed on this server to tell whether DM could read it'
        else:
            try:
                doc = sys.modules['yaml'].safe_load(_py2_printed['text'] + 'config:\n  resources: []\nlayout:\n  resources: []\n')
                problem = None if isinstance(doc, dict) and 'config' in doc else 'it is not part of a YAML mapping'
            except Exception as e:
                problem = str(e).split('\n')[0]
        if problem is None:
            return None
        return ('the template printed %r to stdout%s: DM\'s service read what templates print as part of the '
                'expansion\'s result, and with this in front of it the result was not YAML (%s); remove the print'
                % (self.out.text[:200], where(self.out), problem))


_PY2_HINTS = (
    (r"can't concat (str|bytes) to (bytes|str)|a bytes-like object is required|Strings must be encoded", "Python 2's str was bytes; here text and bytes differ: encode text where bytes are wanted"),
    (r"module 'string' has no attribute", "Python 2's string-module functions are gone: use the str methods"),
    (r"'dict_(keys|values|items)' object", "Python 2's dict.keys()/values()/items() gave lists: write list(d.keys())"),
    (r"not supported between instances of", "Python 2 ordered values of different types (None < 1); Python 3 refuses to"),
    (r"name '(file|execfile|raw_input|reload|buffer|coerce)' is not defined", "a Python 2 builtin that Python 3 does not have"),
    (r"No module named '(urllib2|commands|httplib|cookielib|Cookie|SocketServer|BaseHTTPServer|Tkinter|anydbm|dbhash|md5|sha|sets|new|popen2)'", "a Python 2 module: Python 3 renamed or removed it"),
)


def _py2_hint(message):
    '''Where a Python 3 error comes from a Python 2 habit the compatibility layer does not cover, say so.'''
    for pattern, hint in _PY2_HINTS:
        if _py2_re.search(pattern, message):
            return ' [%s]' % hint
    return ''


def _py2_json(value):
    '''Python 2's str was bytes: ASCII bytes in the result are the text they were in DM.'''
    text = _py2_text(value)
    if isinstance(text, str):
        return text
    raise TypeError('Object of type %s is not JSON serializable' % type(value).__name__)
`;
py.runPython(PY2_COMPAT);
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
