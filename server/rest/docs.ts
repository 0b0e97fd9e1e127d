/**
 * The interactive API documentation at `/api/1.0-beta/docs`: Swagger UI
 * from the `swagger-ui-dist` package, served by Keelson itself (the console
 * runs offline), pointed at the generated OpenAPI document.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { API_PREFIX } from './dispatch';

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

const PAGE = `<!doctype html>
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
<header class="keelson-docs-bar"><a href="${CONSOLE_HOME}" data-testid="back-to-console">← Back to the Keelson console</a></header>
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
 * the console's way back above Swagger UI, and Swagger UI's colours that read
 * below 4.5:1 (axe: color-contrast), darkened.
 */
const CSS = `${[
  '.keelson-docs-bar { padding: 10px 20px; background: #141a24; font: 14px/1.4 system-ui, sans-serif; }',
  '.keelson-docs-bar a { color: #fff; text-decoration: underline; text-underline-offset: 2px; }',
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
].join('\n')}\n`;

export async function docsResponse(path: string): Promise<Response | undefined> {
  if (path === '/docs' || path === '/docs/') return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  const m = /^\/docs\/([\w.-]+)$/.exec(path);
  const type = m && ASSETS[m[1]!];
  if (!m || !type) return undefined;
  const body = m[1] === 'docs-init.js' ? INIT : m[1] === 'docs.css' ? CSS : await readFile(join(swaggerDir(), m[1]!));
  return new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' } });
}
