import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PAGES, pageFigures, pagesTable, summarize } from './pages';
import { FIGURE_LINE_RE, formatFigure } from './registry';

describe('pages benchmark summary', () => {
  test('the first navigation is the cold figure; the target applies to the median of the warm ones', () => {
    // A slow cold start must not hide a quick page, nor one slow warm outlier.
    const s = summarize({ name: 'objects', target: 1000, samples: [4200.4, 300, 2900, 310, 290, 305] });
    assert.deepEqual(s, { name: 'objects', target: 1000, cold: 4200, warm: 305, met: true });
    const slow = summarize({ name: 'editor', target: 1500, samples: [9000, 1600, 1700] });
    assert.equal(slow.warm, 1650);
    assert.equal(slow.met, false);
  });

  test('a page needs a cold and a warm navigation', () => {
    assert.throws(() => summarize({ name: 'tenants', target: 1000, samples: [500] }), /page tenants: need a cold and at least one warm/);
  });

  test('figure lines: ready_ms for pages, answer_ms for the preview, cold_ms for both', () => {
    const lines = pageFigures([
      summarize({ name: 'graph_policy', target: 2000, samples: [3000, 1200, 1300, 1250] }),
      summarize({ name: 'preview', target: 500, samples: [900, 350, 360, 340] }),
    ]).map(formatFigure);
    assert.deepEqual(lines, ['page.graph_policy.ready_ms 1250', 'page.graph_policy.cold_ms 3000', 'page.preview.answer_ms 350', 'page.preview.cold_ms 900']);
    for (const l of lines) assert.match(l, FIGURE_LINE_RE);
  });

  test('the table says which targets are missed', () => {
    const rows = pagesTable([summarize({ name: 'rest_docs', target: 1000, samples: [13000, 1100, 1200, 1150] })]);
    assert.deepEqual(rows[1], ['rest_docs', 13000, 1150, 1000, 'NO']);
  });

  test('every page of the issue is measured, each under a name the figure lines can carry', () => {
    const names = PAGES.map((p) => p.name);
    assert.deepEqual(names, ['objects', 'editor', 'revision', 'graph_policy', 'graph_desired', 'installations', 'dm_layout', 'tenants', 'rest_docs']);
    for (const p of PAGES) assert.ok(p.path.startsWith('/'), p.name);
    assert.equal(PAGES.find((p) => p.name === 'editor')!.target, 1500);
    assert.equal(PAGES.find((p) => p.name === 'graph_policy')!.target, 2000);
  });
});
