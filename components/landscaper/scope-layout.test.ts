import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import ELK from 'elkjs/lib/elk.bundled.js';
import { installInputOf } from '@/server/engine/landscaper/stage';
import { installAll } from '@/server/engine/landscaper';
import { scopeGraph } from '@/server/engine/landscaper/scope-graph';
import { loadObjects } from '@/server/engine/model/validate';
import type { ScopeGraphView } from '@/server/services/landscaper.types';
import { boxTitleWidth, cyclePath, declaredObjectHref, edgeLabelSize, placedNodes, scopeLayoutInput, type ElkNode } from './scope-layout';

/** The fixture's scope graph, as the service builds it. */
function view(): ScopeGraphView {
  const { objects } = loadObjects(readFileSync(join(process.cwd(), 'server/testing/landscaper-application.yaml'), 'utf8'));
  const run = installAll(installInputOf(objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, spec: o.spec }))));
  return { generation: 1, ...scopeGraph(run, [{ namespace: 'landscape', dataObjects: { config: 'shop', config2: 'blog' }, targets: ['cluster', 'cluster2'] }]) };
}

describe('scope graph layout', () => {
  test('open: the namespace box holds two application boxes, each with its own database, webui and objects', () => {
    const input = scopeLayoutInput(view(), new Set());
    const ns = input.root.children!;
    assert.deepEqual(ns.map((n) => n.id), ['ns:landscape']);
    const app = ns[0]!.children!.find((c) => c.id === 'landscape/application')!;
    assert.deepEqual(app.children!.map((c) => c.id).sort(), [
      'landscape/application/database',
      'landscape/application/webui',
      'obj:scope:landscape/application:data:config',
      'obj:scope:landscape/application:data:databaseaccess',
      'obj:scope:landscape/application:data:uiaccess',
      'obj:scope:landscape/application:target:cluster',
    ]);
    assert.ok(input.edges.some((e) => e.source === 'landscape/application/database' && e.target === 'obj:scope:landscape/application:data:databaseaccess' && e.kind === 'export'));
  });

  test('collapsed: the box is one node counting what it hides, and edges into it end at it', () => {
    const input = scopeLayoutInput(view(), new Set(['landscape/application']));
    const item = input.items.get('landscape/application')!;
    assert.equal(item.type === 'installation' && item.collapsed, true);
    assert.equal(item.type === 'installation' && item.hidden, 6);
    assert.equal(input.items.has('landscape/application/webui'), false);
    assert.ok(input.edges.every((e) => !e.source.startsWith('landscape/application/') && !e.target.startsWith('landscape/application/')));
    assert.ok(input.edges.some((e) => e.source === 'obj:ns:landscape:data:config' && e.target === 'landscape/application'));
    // The second application is untouched.
    assert.equal(input.items.has('landscape/application2/webui'), true);
  });

  test('ELK lays the hierarchy out; nodes come parents first, each inside its parent', async () => {
    const input = scopeLayoutInput(view(), new Set());
    const out = (await new ELK().layout(input.root as never)) as unknown as ElkNode;
    const nodes = placedNodes(out, input.items);
    const index = new Map(nodes.map((n, i) => [n.id, i]));
    for (const n of nodes) {
      if (!n.parentId) continue;
      assert.ok(index.get(n.parentId)! < index.get(n.id)!, `${n.parentId} before ${n.id}`);
      const p = nodes[index.get(n.parentId)!]!;
      assert.ok(n.position.x >= 0 && n.position.y >= 0 && n.position.x + n.width <= p.width + 0.5 && n.position.y + n.height <= p.height + 0.5, `${n.id} inside ${p.id}`);
    }
    assert.equal(nodes.length, input.items.size);
  });

  test("ELK leaves room for edge labels: between the two ends of a labelled edge there is at least the label's width, so no label is drawn under a node", async () => {
    const input = scopeLayoutInput(view(), new Set());
    assert.ok(input.root.edges!.every((e, k) => e.labels!.length === 1 && e.labels![0]!.width === edgeLabelSize(input.edges[k]!.label).width));
    const out = (await new ELK().layout(input.root as never)) as unknown as ElkNode;
    const placed = placedNodes(out, input.items);
    const byId = new Map(placed.map((n) => [n.id, n]));
    const absolute = (id: string): { x: number; width: number } => {
      const n = byId.get(id)!;
      const parent = n.parentId ? absolute(n.parentId) : { x: 0 };
      return { x: parent.x + n.position.x, width: n.width };
    };
    let checked = 0;
    for (const e of input.edges) {
      const s = absolute(e.source);
      const t = absolute(e.target);
      // Left to right: the gap between the source's right side and the target's left side holds the label.
      if (t.x < s.x + s.width) continue;
      checked++;
      assert.ok(t.x - (s.x + s.width) >= edgeLabelSize(e.label).width, `${e.id}: gap ${t.x - (s.x + s.width)} < ${edgeLabelSize(e.label).width}`);
    }
    assert.ok(checked > 0);
  });

  test('every box is at least as wide as its title, however little it holds: no title is cut', async () => {
    // A namespace named longer than what it holds is wide.
    const g0 = view();
    const g = {
      ...g0,
      scopes: g0.scopes.map((s) =>
        s.parent === null ? { ...s, label: 'a-namespace-named-at-much-greater-length-than-its-contents-are-wide-which-takes-a-very-long-name-indeed-to-be-sure-of-it' } : s,
      ),
    };
    let boxes = 0;
    // Open, and with both applications folded (the namespace then holds little).
    for (const folded of [new Set<string>(), new Set(['landscape/application', 'landscape/application2'])]) {
      const input = scopeLayoutInput(g, folded);
      const out = (await new ELK().layout(input.root as never)) as unknown as ElkNode;
      for (const n of placedNodes(out, input.items)) {
        const need =
          n.item.type === 'namespace'
            ? boxTitleWidth(`namespace ${n.item.label} · root scope`, `namespace ${n.item.label} · root scope`)
            : n.item.type === 'installation' && n.item.box
              ? boxTitleWidth(`installation ${n.item.installation.name} ${n.item.installation.phase} YAML`, n.item.installation.name)
              : 0;
        if (!need) continue;
        boxes++;
        assert.ok(n.width >= need - 0.5, `${n.id}: ${n.width} < ${need}`);
      }
    }
    assert.ok(boxes >= 4);
  });

  test('a DataObject or Target declared in the namespace links to its YAML; exported values and parent imports have none', () => {
    const g = view();
    const links = Object.fromEntries(g.objects.map((o) => [o.id, declaredObjectHref(o)]));
    assert.equal(links['obj:ns:landscape:data:config'], '/objects/dataobject/landscape/config');
    assert.equal(links['obj:ns:landscape:target:cluster2'], '/objects/target/landscape/cluster2');
    // Written by application's export, not declared: no object of its own.
    assert.equal(links['obj:ns:landscape:data:exports'], null);
    // Inside application2's scope: handed down from its imports.
    const inner = g.objects.filter((o) => o.scope.startsWith('scope:'));
    assert.ok(inner.length > 0);
    for (const o of inner) assert.equal(links[o.id], null, o.id);
  });

  test('a cycle reads as a path', () => {
    assert.equal(cyclePath(['ping', 'pong', 'ping']), 'ping → pong → ping');
  });
});
