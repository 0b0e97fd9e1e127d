/**
 * The API documentation. `/api/1.0-beta/docs` is a reference rendered on the
 * server from the OpenAPI document (plain HTML, readable without script):
 * Swagger UI took over two seconds to show even its list of tags, most of it
 * its own bundle and render. Swagger UI stays at `/api/1.0-beta/docs/try`
 * for trying requests: from the `swagger-ui-dist` package, served by Keelson
 * itself (the console runs offline), pointed at the same document.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { API_PREFIX } from './dispatch';
import { referencePage } from './reference';

/** The files the page loads, and their types; nothing else is served from the package. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'docs-init.js': 'text/javascript; charset=utf-8',
  'docs.css': 'text/css; charset=utf-8',
};

/** Where the docs page's way back leads: the console's first page. */
export const CONSOLE_HOME = '/objects';

let assetDir: string | undefined;
function swaggerDir(): string {
  // Resolved at run time from the installed package (not bundled).
  assetDir ??= dirname(createRequire(join(process.cwd(), 'package.json')).resolve('swagger-ui-dist/package.json'));
  return assetDir;
}

const TRY_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Keelson API</title>
<link rel="stylesheet" href="${API_PREFIX}/docs/swagger-ui.css">
<link rel="stylesheet" href="${API_PREFIX}/docs/docs.css">
<link rel="preload" href="${API_PREFIX}/openapi.json" as="fetch" crossorigin="use-credentials">
</head>
<body>
<header class="keelson-docs-bar"><a href="${CONSOLE_HOME}" data-testid="back-to-console">← Back to the Keelson console</a> <a href="${API_PREFIX}/docs" data-testid="back-to-reference">API reference</a></header>
<main id="swagger-ui"></main>
<script src="${API_PREFIX}/docs/swagger-ui-bundle.js"></script>
<script src="${API_PREFIX}/docs/docs-init.js"></script>
</body>
</html>
`;

// A separate file rather than inline script, so a strict Content-Security-Policy can allow 'self' only.
// docExpansion 'none': the page opens on the list of tags and renders a tag's operations when it is opened
// (all of them at once took seconds). No deep links: Swagger UI puts them inside each operation's button
// (axe: nested-interactive). Its server select has no label; it is named once rendered (axe: select-name).
const INIT = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${API_PREFIX}/openapi.json`)}, dom_id: '#swagger-ui', deepLinking: false, withCredentials: true, docExpansion: 'none' });
new MutationObserver(() => { const s = document.getElementById('servers'); if (s && !s.hasAttribute('aria-label')) s.setAttribute('aria-label', 'Server'); }).observe(document.body, { childList: true, subtree: true });
`;

/**
 * The page's own styles (a file of its own, for the same reason as the script):
 * the console's way back, the reference page, and Swagger UI's colours that read
 * below 4.5:1 (axe: color-contrast), darkened.
 */
const CSS = `${[
  '.keelson-docs-bar { padding: 10px 20px; background: #141a24; font: 14px/1.4 system-ui, sans-serif; }',
  '.keelson-docs-bar a { color: #fff; text-decoration: underline; text-underline-offset: 2px; }',
  '.keelson-docs-bar a + a { margin-left: 1.5em; }',
  '.swagger-ui .info .title small pre { background: #5f6b7a; }',
  '.swagger-ui .info .title small.version-stamp pre { background: #3f6b00; }',
  '.swagger-ui .info a, .swagger-ui .info .url { color: #1f55c0; }',
  '.swagger-ui .btn.authorize { color: #1b7f3b; border-color: #1b7f3b; }',
  '.swagger-ui .btn.authorize span { color: #1b7f3b; }',
  '.swagger-ui .btn.authorize svg { fill: #1b7f3b; }',
  '.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1f5fbf; }',
  '.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1b7f3b; }',
  '.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a5300; }',
  '.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c62828; }',
  '.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #00756a; }',
  '.swagger-ui .opblock.opblock-head .opblock-summary-method, .swagger-ui .opblock.opblock-options .opblock-summary-method { background: #5f6b7a; }',
  '.swagger-ui .json-schema-2020-12-expand-deep-button { color: #505050; }',
  // The reference: readable at 390 px (long paths and names wrap), method badges at 4.5:1 or more on white text.
  'body.keelson-reference { margin: 0; color: #1c2430; background: #fff; font: 15px/1.5 system-ui, sans-serif; }',
  '.keelson-reference main { max-width: 1000px; margin: 0 auto; padding: 8px 16px 48px; }',
  '.keelson-reference main, .keelson-reference code { overflow-wrap: anywhere; }',
  '.keelson-reference main a { color: #1f55c0; }',
  '.keelson-reference code { font: 13px/1.4 ui-monospace, monospace; background: #f1f3f6; padding: 0 3px; border-radius: 3px; }',
  '.keelson-reference .version { color: #4a5563; }',
  '.keelson-reference section.tag { margin-top: 28px; }',
  '.keelson-reference h2 { border-bottom: 1px solid #d5dae1; padding-bottom: 4px; }',
  '.keelson-reference h3 { font-size: 15px; margin: 14px 0 6px; }',
  '.keelson-reference details.op { border: 1px solid #d5dae1; border-radius: 6px; margin: 8px 0; }',
  '.keelson-reference details.op > summary { padding: 8px 10px; cursor: pointer; }',
  '.keelson-reference details.op[open] > summary { border-bottom: 1px solid #d5dae1; }',
  '.keelson-reference .op-body { padding: 4px 12px 12px; }',
  '.keelson-reference .method { display: inline-block; min-width: 4.5em; text-align: center; color: #fff; background: #5f6b7a; border-radius: 4px; font: 700 12px/1.8 system-ui, sans-serif; margin-right: 4px; }',
  '.keelson-reference .method-get { background: #1f5fbf; }',
  '.keelson-reference .method-post { background: #1b7f3b; }',
  '.keelson-reference .method-put { background: #8a5300; }',
  '.keelson-reference .method-delete { background: #c62828; }',
  '.keelson-reference .method-patch { background: #00756a; }',
  '.keelson-reference .op-summary { color: #1c2430; }',
  '.keelson-reference table { width: 100%; table-layout: fixed; border-collapse: collapse; }',
  '.keelson-reference th, .keelson-reference td { text-align: left; vertical-align: top; padding: 4px 6px; border-bottom: 1px solid #e3e7ec; overflow-wrap: anywhere; }',
  '.keelson-reference ul.schema { margin: 2px 0; padding-left: 18px; }',
  '.keelson-reference .type { color: #6a3d9a; }',
  '.keelson-reference .req { color: #a3142b; font-size: 12px; }',
  '.keelson-reference .facts, .keelson-reference .desc, .keelson-reference .deep, .keelson-reference .count { color: #4a5563; }',
].join('\n')}\n`;

// The document does not change while the server runs: each is rendered once.
const rendered = new WeakMap<object, string>();
function reference(doc: Record<string, unknown>): string {
  let html = rendered.get(doc);
  if (html === undefined) {
    html = referencePage(doc, { consoleHome: CONSOLE_HOME, tryUrl: `${API_PREFIX}/docs/try`, documentUrl: `${API_PREFIX}/openapi.json`, stylesheet: `${API_PREFIX}/docs/docs.css` });
    rendered.set(doc, html);
  }
  return html;
}

const HTML = { 'content-type': 'text/html; charset=utf-8' };

export async function docsResponse(path: string, document: () => Record<string, unknown>): Promise<Response | undefined> {
  if (path === '/docs' || path === '/docs/') return new Response(reference(document()), { headers: HTML });
  if (path === '/docs/try' || path === '/docs/try/') return new Response(TRY_PAGE, { headers: HTML });
  const m = /^\/docs\/([\w.-]+)$/.exec(path);
  const type = m && ASSETS[m[1]!];
  if (!m || !type) return undefined;
  const body = m[1] === 'docs-init.js' ? INIT : m[1] === 'docs.css' ? CSS : await readFile(join(swaggerDir(), m[1]!));
  return new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' } });
}
