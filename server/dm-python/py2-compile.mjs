// The first half of the Python 2 compatibility layer (issue 36), run in the DM sandbox
// (child.mjs) before the second (py2-runtime.mjs): how a Python 2 template's source is compiled —
// tokens rewritten as the Python 3 that means the same, and the syntax tree rewritten so that '/' on
// integers floors and dict views are lists. Python source in a string: the sandbox process reads
// only the files it is allowed to (index.ts lists this one), and runs this in its interpreter.
export const PY2_COMPILE = String.raw`
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
`;
