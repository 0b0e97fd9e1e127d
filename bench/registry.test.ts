import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FIGURE_LINE_RE, figure, formatFigure, median, selectBenchmarks } from './registry';

describe('bench registry', () => {
  test('figure lines are plain decimals that match the published pattern', () => {
    const cases: [number, string][] = [
      [0.21, 'x.s 0.21'],
      [236.6, 'x.s 236.6'],
      [22026, 'x.s 22026'],
      [1 / 3, 'x.s 0.333'],
      [-2.5, 'x.s -2.5'],
      [1e-9, 'x.s 0'],
      [-1e-9, 'x.s 0'],
      [123456789.5, 'x.s 123456789.5'],
    ];
    for (const [value, line] of cases) {
      assert.equal(formatFigure(figure('x.s', value)), line);
      assert.match(line, FIGURE_LINE_RE);
    }
  });

  test('names and values the line format cannot carry are refused', () => {
    assert.throws(() => figure('Resolve.medium.s', 1), /figure name/);
    assert.throws(() => figure('resolve medium', 1), /figure name/);
    assert.throws(() => figure('x.s', Number.NaN), /finite/);
    assert.throws(() => figure('x.s', 1e21), /finite|plain/);
  });

  test('opt-in benchmarks run only when named in full', () => {
    const run = async () => [];
    const all = [
      { name: 'generate', description: '', run },
      { name: 'resolve', description: '', run },
      { name: 'resolve-huge', description: '', run, optIn: true },
    ];
    const names = (selected: { name: string }[]) => selected.map((b) => b.name);
    assert.deepEqual(names(selectBenchmarks(all, [])), ['generate', 'resolve']);
    assert.deepEqual(names(selectBenchmarks(all, ['resolve'])), ['resolve']);
    assert.deepEqual(names(selectBenchmarks(all, ['res'])), ['resolve']);
    assert.deepEqual(names(selectBenchmarks(all, ['resolve-huge'])), ['resolve-huge']);
    assert.deepEqual(names(selectBenchmarks(all, ['resolve', 'resolve-huge'])), ['resolve', 'resolve-huge']);
  });

  test('median', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
});
