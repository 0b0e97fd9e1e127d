import assert from 'node:assert/strict';
import { test } from 'node:test';
import { locateField } from './source';

const BUNDLE = `# a bundle
kind: bundle
metadata: {namespace: main, name: web}
components:
  - name: app
    code:
      type: helm
      params:
        plain: "{{ .A }} and {{ .B }}"
        block: |
          v1
            {{ .Discovery.db.url }}
        bare: x {{ .C }}
`;

test('a field and a position inside its template map to the line and column of the YAML text', () => {
  assert.deepEqual(locateField(BUNDLE, ['components', 0, 'code', 'type']), { line: 7, column: 13 });
  // Line 2, column 5 of the block scalar's content.
  assert.deepEqual(locateField(BUNDLE, ['components', 0, 'code', 'params', 'block'], { line: 2, column: 5 }), { line: 12, column: 15 });
  // Inside a double-quoted scalar: one column after the quote.
  assert.deepEqual(locateField(BUNDLE, ['components', 0, 'code', 'params', 'plain'], { line: 1, column: 14 }), { line: 9, column: 30 });
  assert.deepEqual(locateField(BUNDLE, ['components', 0, 'code', 'params', 'bare'], { line: 1, column: 3 }), { line: 13, column: 17 });
  assert.equal(locateField(BUNDLE, ['components', 3, 'code']), undefined);
  assert.equal(locateField('kind: [', ['kind']), undefined);
});
