// The second half of the Python 2 compatibility layer (issue 36), run in the DM sandbox
// (child.mjs) after the first (py2-compile.mjs), in the same interpreter globals: what compiled
// template code calls — Python 2's operators, builtins and modules, the loader that compiles helper
// modules through _py2_compile, print's output, and the hints naming a Python 2 habit in an error.
export const PY2_RUNTIME = String.raw`
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
