/**
 * The API reference page (reference.ts): what a reader sees of a document,
 * and that nothing in the document can become markup.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { referencePage, SCHEMA_DEPTH_CAP } from './reference';

const LINKS = { consoleHome: '/objects', tryUrl: '/api/docs/try', documentUrl: '/api/openapi.json', stylesheet: '/api/docs/docs.css' };

/** A schema nested `levels` deep: each level has a field `next`, the last a field `bottom`. */
function nested(levels: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'object', properties: { bottom: { type: 'string' } } };
  for (let i = 0; i < levels; i++) s = { type: 'object', properties: { next: s } };
  return s;
}

const DOC = {
  openapi: '3.1.0',
  info: { title: 'Keelson API', version: '1.0-beta', description: 'Use `Authorization: Bearer <token>` <script>alert(1)</script>' },
  tags: [{ name: 'widgets', description: 'Widgets <b>bold</b>' }, { name: 'empty' }],
  components: {
    schemas: { ErrorBody: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } } },
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, session: { type: 'apiKey', in: 'cookie', name: 'next-auth.session-token' } },
  },
  paths: {
    '/widgets/{id}': {
      get: {
        summary: 'Read a widget <img src=x onerror=alert(1)>',
        description: 'Who may call it: <script>steal()</script>.',
        tags: ['widgets'],
        parameters: [{ name: 'id', in: 'path', required: true, description: 'The "id" & more', schema: { type: 'string', minLength: 1 } }],
        responses: {
          '200': {
            description: 'Success',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['colour'],
                  properties: {
                    colour: { type: 'string', enum: ['red', '<blue>'], description: 'Its colour' },
                    deep: nested(SCHEMA_DEPTH_CAP + 3),
                  },
                },
              },
            },
          },
          '404': { description: 'Nothing there', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } },
        },
      },
      delete: { summary: 'Remove it', tags: ['widgets'], security: [], responses: {} },
    },
    '/loose': { post: { summary: 'No tag', requestBody: { required: true, content: { 'application/json': { schema: { type: 'array', items: { type: 'integer' } } } } }, responses: {} } },
  },
};

describe('the API reference page', () => {
  const html = referencePage(DOC, LINKS);

  test('text from the document is shown as text: a description holding <script> never becomes markup', () => {
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /<img/i);
    assert.doesNotMatch(html, /<b>/);
    assert.ok(html.includes('Who may call it: &lt;script&gt;steal()&lt;/script&gt;.'));
    assert.ok(html.includes('Read a widget &lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(html.includes('The &quot;id&quot; &amp; more'));
    assert.ok(html.includes('<code>&quot;&lt;blue&gt;&quot;</code>'));
    // Backquoted code in the prose is shown as code, still escaped.
    assert.ok(html.includes('<code>Authorization: Bearer &lt;token&gt;</code>'));
  });

  test('one section per tag with its operations, each with method, path and summary; a tag-less operation is under "other"', () => {
    assert.match(html, /<section class="tag" id="tag-widgets" data-tag="widgets"><h2>widgets<\/h2><p>Widgets &lt;b&gt;bold&lt;\/b&gt;<\/p>/);
    assert.match(html, /<details class="op" data-method="get" data-path="\/widgets\/\{id\}"><summary><span class="method method-get">GET<\/span> <code class="path">\/widgets\/\{id\}<\/code>/);
    assert.match(html, /data-method="delete" data-path="\/widgets\/\{id\}">[^]*No authentication needed/);
    assert.match(html, /data-tag="other"><h2>other<\/h2><details class="op" data-method="post" data-path="\/loose">/);
    // A tag with no operations has no section, and the list of groups links to each section.
    assert.doesNotMatch(html, /data-tag="empty"/);
    assert.match(html, /<a href="#tag-widgets">widgets<\/a> <span class="count">\(2\)<\/span>/);
    assert.equal(html.match(/<h1>/g)?.length, 1);
  });

  test('parameters are a table with column headers; bodies and answers show their fields, required ones marked', () => {
    assert.match(html, /<th scope="col">Name<\/th><th scope="col">In<\/th><th scope="col">Required<\/th><th scope="col">Type<\/th><th scope="col">Description<\/th>/);
    assert.match(html, /<tr><td><code>id<\/code><\/td><td>path<\/td><td>yes<\/td><td>string <span class="facts">\(length at least 1\)<\/span><\/td>/);
    assert.match(html, /<code class="prop">colour<\/code> <span class="req">required<\/span> <span class="type">string<\/span> <span class="facts">\(one of <code>&quot;red&quot;<\/code>/);
    assert.match(html, /<h3>Request body \(required\)<\/h3><div class="media"><code>application\/json<\/code>: <span class="type">array of integer<\/span>/);
    assert.match(html, /<strong class="status">404<\/strong> Nothing there/);
  });

  test('a $ref is named and linked to its schema, drawn once; deep schemas stop at the cap', () => {
    assert.match(html, /<a href="#schema-ErrorBody">ErrorBody<\/a>/);
    assert.match(html, /<h3 id="schema-ErrorBody">ErrorBody<\/h3>/);
    assert.ok(html.includes('deeper fields: see openapi.json'));
    assert.doesNotMatch(html, /<code class="prop">bottom<\/code>/);
  });

  test('how to authenticate: a bearer token from the Profile page, or the console session', () => {
    assert.match(html, /<strong>bearer<\/strong>: send <code>Authorization: Bearer &lt;token&gt;<\/code>; create a token on your <a href="\/profile">Profile page<\/a>/);
    assert.match(html, /<strong>session<\/strong>: the console's session[^<]*<code>next-auth.session-token<\/code>/);
  });
});
