import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRe2 } from './re2';
import { HOSTILE_PATTERNS } from '../../testing/hostile-engine';

function matches(pattern: string, input: string): boolean | undefined {
  const r = compileRe2(pattern);
  assert.ok(r.ok, `${pattern}: ${r.ok ? '' : r.error.message}`);
  return r.value.test(input);
}

test('Go regexp syntax: unanchored search, anchors, classes, repeats', () => {
  const table: [string, string, boolean][] = [
    ['abc', 'xxabcxx', true],
    ['', 'anything', true],
    ['^abc$', 'abc', true],
    ['^abc$', 'abc\n', false], // Go's $ is end of text, not "before a final newline"
    ['(?m)^b$', 'a\nb\nc', true],
    ['a.c', 'a\nc', false],
    ['(?s)a.c', 'a\nc', true],
    ['colou?r', 'color', true],
    ['\\d{3}-\\d{4}', 'call 555-1234', true],
    ['^[a-z]+$', 'abC', false],
    ['(?i)^[a-z]+$', 'abC', true],
    ['(?i:AB)c', 'abc', true],
    ['(?i:AB)c', 'abC', false],
    ['\\bfoo\\b', 'a foo b', true],
    ['\\bfoo\\b', 'afoob', false],
    ['[[:alpha:]]+', '123abc', true],
    ['^[[:^digit:]]+$', 'abc', true],
    ['^[^a]$', '\n', true],
    ['^\\p{Greek}+$', 'αβγ', true],
    ['^\\pL+$', 'abc1', false],
    ['^\\P{L}$', '1', true],
    ['^x{2,3}$', 'xxxx', false],
    ['^x{2,}$', 'xxxx', true],
    ['^(ab|cd)*$', 'abcdab', true],
    ['(?P<n>a)b', 'ab', true],
    ['(?<n>a)b', 'ab', true],
    ['\\Qa.b\\E', 'a.b', true],
    ['\\Qa.b\\E', 'axb', false],
    ['^\\x41\\x{42}\\101$', 'ABA', true],
    ['a{,3}', 'a{,3}', true], // not a repeat in Go: literal braces
    ['(?i)k', '\u212a', true], // Kelvin sign folds to k
    ['^.$', '🙂', true],
    ['^[🙂-🙃]$', '🙃', true],
    ['[\\d\\s]+', '  ', true],
    ['\\Aab\\z', 'ab', true],
  ];
  for (const [pattern, input, want] of table) assert.equal(matches(pattern, input), want, `${pattern} on ${JSON.stringify(input)}`);
});

test('patterns Go rejects are compile errors with Go wording', () => {
  const table: [string, string][] = [
    ['(a', 'missing closing )'],
    ['a)', 'unexpected )'],
    ['[a', 'missing closing ]'],
    ['a**', 'invalid nested repetition operator'],
    ['*a', 'missing argument to repetition operator'],
    ['a{1001}', 'invalid repeat count'],
    ['a{3,2}', 'invalid repeat count'],
    ['(?=a)', 'invalid or unsupported Perl syntax'], // no look-around in RE2
    ['\\1', 'invalid escape sequence'], // no backreferences
    ['\\Z', 'invalid escape sequence'],
    ['[z-a]', 'invalid character class range'],
    ['\\p{Nope}', 'invalid character class range'],
    ['(a{1000}){1000}', 'expression too large'],
  ];
  for (const [pattern, message] of table) {
    const r = compileRe2(pattern);
    assert.ok(!r.ok, pattern);
    assert.equal(r.error.code, 'expr_parse_error');
    assert.match(r.error.message, new RegExp(message.replace(/[()*]/g, '\\$&')), pattern);
  }
});

test('catastrophic-backtracking patterns give their answer (RE2 is linear; the `limits` benchmark times them)', () => {
  for (const { pattern, input, matches: expected } of HOSTILE_PATTERNS) assert.equal(matches(pattern, input), expected, pattern);
});

test('the work budget stops a long match instead of running on', () => {
  const r = compileRe2('(a|b|c|d)*e');
  assert.ok(r.ok);
  assert.equal(r.value.test('abcd'.repeat(10_000), 1000), undefined);
  assert.equal(r.value.test('abcde', 1000), true);
});
