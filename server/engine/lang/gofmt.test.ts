import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareGoStrings, formatGoFloat, goQuote, parseGoBool, parseGoInt, utf8ByteLength } from './gofmt';
import { formatValueV, goSprint, goSprintf, goSprintln } from './gosprint';

test('strconv.ParseBool accepts exactly the Go spellings', () => {
  const table: [string, boolean | undefined][] = [
    ['1', true], ['t', true], ['T', true], ['TRUE', true], ['true', true], ['True', true],
    ['0', false], ['f', false], ['F', false], ['FALSE', false], ['false', false], ['False', false],
    ['yes', undefined], ['tRUE', undefined], [' true', undefined], ['', undefined],
  ];
  for (const [input, want] of table) assert.equal(parseGoBool(input), want, input);
});

test('strconv.Atoi: optional sign and digits in int64 range only', () => {
  const table: [string, number | undefined][] = [
    ['10', 10], ['-7', -7], ['+007', 7], ['0', 0],
    ['1.5', undefined], ['1e3', undefined], ['0x10', undefined], ['1_000', undefined], [' 1', undefined], ['', undefined],
    ['9223372036854775807', 9223372036854775807], ['9223372036854775808', undefined], ['-9223372036854775809', undefined],
  ];
  for (const [input, want] of table) assert.equal(parseGoInt(input), want, input);
});

test('%v of float64 follows strconv shortest formatting (exponent from 1e+06)', () => {
  const table: [number, string][] = [
    [0, '0'], [-0, '-0'], [1, '1'], [1.5, '1.5'], [100, '100'], [123456, '123456'],
    [1e6, '1e+06'], [1234567, '1.234567e+06'], [0.0001, '0.0001'], [0.00001, '1e-05'],
    [1e21, '1e+21'], [608863452348.1149, '6.088634523481149e+11'], [-2.5, '-2.5'],
    [Infinity, '+Inf'], [-Infinity, '-Inf'], [NaN, 'NaN'],
  ];
  for (const [x, want] of table) assert.equal(formatGoFloat(x, 'g'), want, String(x));
});

test('explicit precision rounds half to even on the exact binary value', () => {
  const table: [number, 'e' | 'f' | 'g', number, string][] = [
    [2.5, 'f', 0, '2'], [3.5, 'f', 0, '4'], [0.5, 'f', 0, '0'], [1.005, 'f', 2, '1.00'],
    [3.14159, 'f', 2, '3.14'], [123.456, 'e', 3, '1.235e+02'], [1234.5678, 'g', 3, '1.23e+03'],
    [0.000123, 'e', 1, '1.2e-04'], [1e-7, 'g', -1, '1e-07'], [99.99, 'f', 1, '100.0'], [0.004, 'f', 1, '0.0'],
  ];
  for (const [x, verb, prec, want] of table) assert.equal(formatGoFloat(x, verb, prec), want, `${x} %.${prec}${verb}`);
});

test('fmt.Sprintf verbs, flags and Go error spellings', () => {
  const table: [string, unknown[], string][] = [
    ['%s-%v', ['a', 1], 'a-1'],
    ['%d|%5d|%-5d|%05d|%+d|% d', [42, 42, 42, -42, 5, 5], '42|   42|42   |-0042|+5| 5'],
    ['%x %X %#x %o %#o %b %c %U', [255, 255, 255, 8, 8, 5, 65, 0x1f600], 'ff FF 0xff 10 010 101 A U+1F600'],
    ['%f %.2f %8.3f %e %g %G', [1.5, 3.14159, -3.14159, 1234.5678, 1e6, 1e-7], '1.500000 3.14   -3.142 1.234568e+03 1e+06 1E-07'],
    ['%q %q %x', ['a"b\n', 97, 'hi'], '"a\\"b\\n" \'a\' 6869'],
    ['%t %v %T %T %T', [true, null, 1, 1.5, 'x'], 'true <nil> int float64 string'],
    ['%5.2s|%-4s|', ['abcdef', 'ab'], '   ab|ab  |'],
    ['%v %v', [[1, 'x', null], { b: 2, a: [true] }], '[1 x <nil>] map[a:[true] b:2]'],
    ['100%%', [], '100%'],
    ['%d', ['str'], '%!d(string=str)'],
    ['%s', [5], '%!s(int=5)'],
    ['%d', [1.5], '%!d(float64=1.5)'],
    ['%s', [null], '%!s(<nil>)'],
    ['%d %d', [1], '1 %!d(MISSING)'],
    ['%d', [1, 2, 'x'], '1%!(EXTRA int=2, string=x)'],
    ['trailing %', [], 'trailing %!(NOVERB)'],
    ['%*d|%-*d', [4, 7, 3, 1], '   7|1  '],
    ['%99999999d', [1], '%!(BADWIDTH)1'],
  ];
  for (const [format, args, want] of table) assert.equal(goSprintf(format, args, 'int-aware'), want, format);
});

test('Sprint adds spaces only between non-string operands; Sprintln always', () => {
  assert.equal(goSprint(['a', 1, 2, 'b', true], 'int-aware'), 'a1 2btrue');
  assert.equal(goSprintln(['a', 1, 'b'], 'int-aware'), 'a 1 b\n');
});

test('value printing: ints, float64 style, nil, slices and maps with sorted keys', () => {
  assert.equal(formatValueV(1000000, 'int-aware'), '1000000');
  assert.equal(formatValueV(1000000, 'float64'), '1e+06');
  assert.equal(formatValueV({ z: 1, a: null, m: new Map([['k', 'v']]) }, 'int-aware'), 'map[a:<nil> m:map[k:v] z:1]');
  assert.equal(formatValueV([[1, 2], []], 'int-aware'), '[[1 2] []]');
});

test('strconv.Quote escapes controls and keeps printable Unicode', () => {
  assert.equal(goQuote('tab\there\u0001\u007fé🙂\\'), '"tab\\there\\x01\\x7fé🙂\\\\"');
  assert.equal(goQuote('\u200b'), '"\\u200b"');
});

test('strings compare in UTF-8 byte order and measure in bytes', () => {
  assert.ok(compareGoStrings('a', 'b') < 0);
  assert.ok(compareGoStrings('ab', 'a') > 0);
  // U+FFFD sorts before U+1F600 in Go; JS's UTF-16 order says the opposite.
  assert.ok('\ufffd' > '🙂');
  assert.ok(compareGoStrings('\ufffd', '🙂') < 0);
  assert.equal(utf8ByteLength('héllo🙂'), 10);
});
