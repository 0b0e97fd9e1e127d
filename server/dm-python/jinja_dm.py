# Deployment Manager's Jinja templates, rendered by Jinja2 itself inside the sandbox (child.mjs runs
# this file once, at boot, before the baseline every expansion is reset to).
#
# DM rendered `Environment(loader=DictLoader(imports)).from_string(source).render(resource)` with
# Jinja2 2.8. The host's Jinja2 is 3.1, so what 2.8 did not have is taken away (filters, tests and
# globals added later) and 2.8's `indent` is put back; everything else is Jinja2's own semantics:
# printed values, undefined values, Python operators, methods, loops and scoping.
#
# What DM did not do and Keelson must: the template is user input, so the environment is Jinja2's
# SandboxedEnvironment (no attribute starting with `_`, no unsafe callables), every call and range
# step is counted against the expansion's steps and its deadline, and every string or list an
# operator, method or filter would build is sized against the output limit *before* it is built.
# What slips past these (a loop over data with no call in it) still meets the sandbox's own time
# and memory limits, which kill the process.
import json
import re
import sys
import time

import jinja2
import jinja2.compiler
import jinja2.filters
import jinja2.sandbox
from jinja2.exceptions import TemplateNotFound, TemplateSyntaxError, UndefinedError

# Jinja2 2.8's tests; every later one goes (in, boolean, integer, float, eq, ==, …).
_TESTS_28 = frozenset(('odd', 'even', 'divisibleby', 'defined', 'undefined', 'none', 'lower', 'upper', 'string',
                       'mapping', 'number', 'sequence', 'iterable', 'callable', 'sameas', 'escaped', 'equalto'))
# Filters added after 2.8: tojson (2.9), min, max, unique (2.10), items (3.1).
_FILTERS_AFTER_28 = ('tojson', 'min', 'max', 'unique', 'items')
# Globals added after 2.8: namespace (2.10).
_GLOBALS_AFTER_28 = ('namespace',)


class OverBudget(Exception):
    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind


class _Meter(object):
    '''One render's budget: steps (calls and range items), the deadline, and the output limit.'''

    def __init__(self, steps, output, deadline):
        self.steps = steps
        self.left = steps
        self.output = output
        self.deadline = deadline

    def tick(self, n=1):
        self.left -= n
        if self.left < 0:
            raise OverBudget('steps', 'ran out of steps: the expansion\'s templates may take %d calls and loop items in all' % self.steps)
        if time.monotonic() > self.deadline:
            raise OverBudget('time', 'ran out of time')

    def size(self, n, what):
        if n > self.output:
            raise OverBudget('output', 'would build %s of %d characters or items, over the output limit of %d' % (what, n, self.output))


_meter = [None]


def _m():
    return _meter[0]


class _Range(list):
    '''range() as Python 2 (DM's) had it: a list, printed as one; its loop items are counted.'''

    def __iter__(self):
        m = _m()
        it = list.__iter__(self)
        n = 0
        for x in it:
            n += 1
            if n & 63 == 0:
                m.tick(64)
            yield x


_WIDTH = re.compile(r'%[-#0 +]*(\d+|\*)?(?:\.(\d+|\*))?[a-zA-Z%]')
_FORMAT_WIDTH = re.compile(r'\{[^{}]*:[^{}]*?(\d+)(?:\.(\d+))?[^{}]*\}')


def _check_widths(fmt, what):
    m = _m()
    if not isinstance(fmt, str):
        return
    for w, p in _WIDTH.findall(fmt):
        for d in (w, p):
            if d and d != '*':
                m.size(int(d), what)
    for w, p in _FORMAT_WIDTH.findall(fmt):
        for d in (w, p):
            if d:
                m.size(int(d), what)


def _printed_size(v, limit):
    '''About how many characters str(v) would take, counted no further than just past `limit`:
    a list holding itself twice, thirty levels deep, is 2^30 leaves once printed.'''
    stack = [v]
    n = 0
    while stack and n <= limit:
        x = stack.pop()
        if isinstance(x, dict):
            n += 2 + 4 * len(x)
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            n += 2 + 2 * len(x)
            stack.extend(x)
        elif isinstance(x, str):
            n += len(x) + 2
        else:
            n += 8
    return n


def _check_printed(v, what):
    if isinstance(v, (dict, list, tuple, set, frozenset)):
        m = _m()
        m.size(_printed_size(v, m.output), what)


def _sized(x):
    return isinstance(x, (str, list, tuple))


def _pre_binop(op, left, right):
    m = _m()
    if op == '*':
        for a, b in ((left, right), (right, left)):
            if _sized(a) and isinstance(b, int) and not isinstance(b, bool):
                m.size(len(a) * max(b, 0), 'a repeated string or list')
    elif op == '+':
        if _sized(left) and _sized(right):
            m.size(len(left) + len(right), 'a joined string or list')
    elif op == '**':
        if isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
            m.size(left.bit_length() * right // 8, 'a number')
    elif op == '%':
        if isinstance(left, str):
            _check_widths(left, 'a formatted string')
            for a in (right if isinstance(right, tuple) else (right,)):
                if isinstance(a, int) and not isinstance(a, bool) and '*' in left:
                    m.size(a, 'a formatted string')


def _str_len(seq):
    return sum(len(x) if isinstance(x, str) else 16 for x in seq)


def _pre_method(obj, name, args, kwargs):
    '''Sizes what a str or list method would build, before it is built.'''
    m = _m()
    if isinstance(obj, str):
        if name in ('center', 'ljust', 'rjust', 'zfill') and args and isinstance(args[0], int):
            m.size(args[0], 'a padded string')
        elif name == 'expandtabs':
            tab = args[0] if args and isinstance(args[0], int) else kwargs.get('tabsize', 8)
            if isinstance(tab, int):
                m.size(len(obj) * max(tab, 1), 'an expanded string')
        elif name == 'replace' and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
            n = obj.count(args[0]) if args[0] else len(obj) + 1
            m.size(len(obj) + n * max(len(args[1]) - len(args[0]), 0), 'a replaced string')
        elif name == 'join' and args and isinstance(args[0], (list, tuple)):
            m.size(_str_len(args[0]) + len(obj) * len(args[0]), 'a joined string')
        elif name in ('format', 'format_map'):
            _check_widths(obj, 'a formatted string')
    elif isinstance(obj, list):
        if name == 'extend' and args and hasattr(args[0], '__len__'):
            m.size(len(obj) + len(args[0]), 'a list')


class _CodeGenerator(jinja2.compiler.CodeGenerator):
    '''`a ~ b` is sized like `+`: Jinja2 compiles it to a join the sandbox does not see.'''

    def visit_Concat(self, node, frame):
        self.write('environment.keelson_concat((')
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(', ')
        self.write('))')


class _Imports(jinja2.BaseLoader):
    '''DM's DictLoader of the imports, naming each template's file as its import name (for error lines).'''

    def __init__(self, files):
        self.files = files

    def get_source(self, environment, template):
        if template not in self.files:
            raise TemplateNotFound(template)
        return self.files[template], template, lambda: True


class DmEnvironment(jinja2.sandbox.SandboxedEnvironment):
    intercepted_binops = frozenset(['*', '+', '**', '%'])
    code_generator_class = _CodeGenerator

    def __init__(self, files, range_limit):
        jinja2.sandbox.SandboxedEnvironment.__init__(self, loader=_Imports(files), cache_size=400)
        self.range_limit = range_limit
        for f in _FILTERS_AFTER_28:
            self.filters.pop(f, None)
        for t in list(self.tests):
            if t not in _TESTS_28:
                del self.tests[t]
        for g in _GLOBALS_AFTER_28:
            self.globals.pop(g, None)
        self.globals['range'] = self._range
        self.filters['indent'] = _indent_28
        # Every filter is a step; those that can build more than they read are sized first.
        for name in list(self.filters):
            self.filters[name] = _checked(self.filters[name], _FILTER_CHECKS.get(name))
        self.finalize = _finalize

    def _range(self, *args):
        r = range(*args)
        if len(r) > self.range_limit:
            raise OverBudget('output', 'range() of %d items is over the limit of %d' % (len(r), self.range_limit))
        return _Range(r)

    def keelson_concat(self, parts):
        for p in parts:
            _check_printed(p, 'a joined string')
        texts = [str(p) for p in parts]
        _m().size(sum(len(t) for t in texts), 'a joined string')
        return ''.join(texts)

    def getattr(self, obj, attribute):
        # str.format comes back wrapped by the sandbox (no longer a bound method call() could read): size it here.
        if isinstance(obj, str) and attribute in ('format', 'format_map'):
            _check_widths(obj, 'a formatted string')
        return jinja2.sandbox.SandboxedEnvironment.getattr(self, obj, attribute)

    def getitem(self, obj, argument):
        if isinstance(obj, str) and argument in ('format', 'format_map'):
            _check_widths(obj, 'a formatted string')
        return jinja2.sandbox.SandboxedEnvironment.getitem(self, obj, argument)

    def call_binop(self, context, operator, left, right):
        _m().tick()
        _pre_binop(operator, left, right)
        return jinja2.sandbox.SandboxedEnvironment.call_binop(self, context, operator, left, right)

    def call(__self, __context, __obj, *args, **kwargs):
        _m().tick()
        owner = getattr(__obj, '__self__', None)
        name = getattr(__obj, '__name__', None)
        if owner is not None and name:
            _pre_method(owner, name, args, kwargs)
        return jinja2.sandbox.SandboxedEnvironment.call(__self, __context, __obj, *args, **kwargs)


def _finalize(value):
    '''What `{{ value }}` prints is sized before str() builds it.'''
    _check_printed(value, 'a printed value')
    return value


def _indent_28(s, width=4, indentfirst=False):
    '''Jinja2 2.8's indent: every line after the first (all with indentfirst); a final newline goes.'''
    _m().size(len(s) + (s.count('\n') + 1) * max(int(width), 0), 'an indented string')
    pad = ' ' * width
    out = ('\n' + pad).join(s.splitlines())
    return pad + out if indentfirst else out


def _filter_center(value, width=80, *a, **k):
    if isinstance(width, int):
        _m().size(width, 'a centred string')


def _filter_replace(value, old='', new='', *a, **k):
    s = str(value)
    if isinstance(old, str) and isinstance(new, str):
        n = s.count(old) if old else len(s) + 1
        _m().size(len(s) + n * max(len(new) - len(old), 0), 'a replaced string')


def _filter_join(value, d='', *a, **k):
    if isinstance(value, (list, tuple)) and isinstance(d, str):
        m = _m()
        m.size(sum(_printed_size(x, m.output) for x in value) + len(d) * len(value), 'a joined string')


def _filter_format(value, *a, **k):
    _check_widths(value, 'a formatted string')


def _filter_wordwrap(value, width=79, break_long_words=True, wrapstring=None, *a, **k):
    if isinstance(width, int) and width > 0 and isinstance(wrapstring, str):
        _m().size(len(str(value)) * (1 + len(wrapstring)), 'a wrapped string')


def _filter_batch(value, linecount, fill_with=None, *a, **k):
    if fill_with is not None and isinstance(linecount, int):
        _m().size(linecount, 'a batch')


def _filter_slice(value, slices, fill_with=None, *a, **k):
    if isinstance(slices, int):
        _m().size(slices, 'a list of slices')


def _filter_printed(value, *a, **k):
    _check_printed(value, 'a printed value')


_FILTER_CHECKS = {
    'batch': _filter_batch,
    'slice': _filter_slice,
    'string': _filter_printed,
    'pprint': _filter_printed,
    'center': _filter_center,
    'replace': _filter_replace,
    'join': _filter_join,
    'format': _filter_format,
    'wordwrap': _filter_wordwrap,
}


def _checked(f, check):
    '''A filter that sizes its result first. Keeps the filter's pass_* markers (Jinja2 reads them off the function).'''

    def run(*args, **kwargs):
        _m().tick()
        if check is not None:
            vals = list(args)
            # Filters marked pass_eval_context/pass_environment/pass_context get that first.
            if getattr(f, 'jinja_pass_arg', None) is not None:
                vals = vals[1:]
            check(*vals, **kwargs)
        return f(*args, **kwargs)

    if getattr(f, 'jinja_pass_arg', None) is not None:
        run.jinja_pass_arg = f.jinja_pass_arg
    return run


def _line_of(tb, names):
    line = None
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if f in names:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _describe(e):
    return '%s: %s' % (type(e).__name__, e)


class _Py2Dict(dict):
    '''The resource's dicts: Python 2's iterator methods, which DM's templates could call.'''

    @staticmethod
    def hook(d):
        # An integer above 2^53 comes as {"__keelson_int__": "digits"}: JSON numbers would round it.
        if len(d) == 1 and '__keelson_int__' in d:
            return int(d['__keelson_int__'])
        # A float with a whole value (10.0): JSON would have made it the integer 10.
        if len(d) == 1 and '__keelson_float__' in d:
            return float(d['__keelson_float__'])
        return _Py2Dict(d)

    # Python 2's dict methods returned lists (DM's templates index `keys()[0]` and sort them in place).
    def keys(self):
        return list(dict.keys(self))

    def values(self):
        return list(dict.values(self))

    def items(self):
        return list(dict.items(self))

    def iteritems(self):
        return iter(dict.items(self))

    def itervalues(self):
        return iter(dict.values(self))

    def iterkeys(self):
        return iter(dict.keys(self))

    def has_key(self, k):
        return k in self


_envs = {}


def render(req):
    '''One template of one expansion: {ok, value: text} or {ok: false, message, reason, budget?, line?, file?}.'''
    lim = req['limits']
    deadline = time.monotonic() + lim['ms'] / 1000.0
    scope = req.get('scope')
    files = req['files']
    env = _envs.pop(scope, None) if scope is not None else None
    if env is None or env.range_limit != lim['range']:
        # One environment (its compiled templates, and what is left of the steps) per expansion.
        env = DmEnvironment(files, lim['range'])
        env.meter_left = lim['steps']
    if scope is not None:
        # The few most recent expansions (threads sharing this process interleave theirs).
        _envs[scope] = env
        while len(_envs) > 8:
            del _envs[next(iter(_envs))]
    _meter[0] = _Meter(lim['steps'], lim['output'], deadline)
    _meter[0].left = env.meter_left
    name = req['name']
    variables = json.loads(req['variables'], object_hook=_Py2Dict.hook)
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(min(limit, 600))
        template = env.get_template(name) if name in files else env.from_string(req['source'])
        out = []
        n = 0
        for chunk in template.generate(variables):
            n += len(chunk)
            _m().size(n, 'an output')
            out.append(chunk)
        text = ''.join(out)
        # Jinja2's render() joins what generate() yields; keep_trailing_newline is off, as in DM.
        return {'ok': True, 'value': text}
    except OverBudget as e:
        line = _line_of(sys.exc_info()[2], files)
        return {'ok': False, 'reason': 'limit', 'budget': e.kind, 'message': str(e), 'line': line}
    except RecursionError:
        return {'ok': False, 'reason': 'limit', 'budget': 'depth', 'message': 'nests includes, imports or macro calls too deeply'}
    except MemoryError:
        return {'ok': False, 'reason': 'limit', 'budget': 'volume', 'message': 'ran out of memory'}
    except TemplateSyntaxError as e:
        where = e.name or e.filename or name
        return {'ok': False, 'reason': 'exception', 'message': 'TemplateSyntaxError: %s' % e.message, 'line': e.lineno, 'file': where}
    except TemplateNotFound as e:
        return {'ok': False, 'reason': 'exception', 'message': 'TemplateNotFound: %s' % e.message, 'line': _line_of(sys.exc_info()[2], files)}
    except Exception as e:
        return {'ok': False, 'reason': 'exception', 'message': _describe(e), 'line': _line_of(sys.exc_info()[2], files)}
    finally:
        sys.setrecursionlimit(limit)
        env.meter_left = _meter[0].left
        _meter[0] = None
