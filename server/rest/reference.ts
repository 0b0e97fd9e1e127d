/**
 * The API reference page: the OpenAPI document rendered as plain HTML on the
 * server, so reading the docs needs no script (Swagger UI, kept for trying
 * requests, took seconds to show even its list of tags). Everything taken
 * from the document is escaped: it is data, never markup.
 */
import { isRecord } from '../engine/lang/data';

type Json = Record<string, unknown>;

/** Deeper schemas are named, not drawn: the page stays readable and finite. */
export const SCHEMA_DEPTH_CAP = 5;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (v: unknown): string => String(v).replace(/[&<>"']/g, (c) => ENTITIES[c]!);

/** The document's prose uses backquotes for code (Markdown); nothing else of Markdown is honoured. Escaped first. */
const prose = (text: unknown): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const anchor = (prefix: string, name: string): string => `${prefix}-${name.replace(/[^A-Za-z0-9_-]+/g, '-')}`;

const obj = (v: unknown): Json | undefined => (isRecord(v) ? v : undefined);

/** A `$ref` into the document's components links to its entry below; any other is named only. */
function refHtml(ref: string): string {
  const name = ref.split('/').pop() ?? ref;
  return ref.startsWith('#/components/schemas/') ? `<a href="#${anchor('schema', name)}">${escapeHtml(name)}</a>` : `<code>${escapeHtml(name)}</code>`;
}

function typeHtml(s: Json): string {
  if (typeof s.$ref === 'string') return refHtml(s.$ref);
  if ('const' in s) return `constant <code>${escapeHtml(JSON.stringify(s.const))}</code>`;
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) return 'one of';
  const type = Array.isArray(s.type) ? s.type.join(' or ') : typeof s.type === 'string' ? s.type : 'any';
  if (type === 'array') {
    const items = obj(s.items);
    return `array of ${items ? typeHtml(items) : 'any'}`;
  }
  return escapeHtml(typeof s.format === 'string' ? `${type} (${s.format})` : type);
}

/** Constraints a caller must meet, in words. */
function factsHtml(s: Json): string {
  const facts: string[] = [];
  if (Array.isArray(s.enum)) facts.push(`one of ${s.enum.map((v) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(', ')}`);
  const limits: [string, string][] = [
    ['minimum', 'at least'],
    ['exclusiveMinimum', 'more than'],
    ['maximum', 'at most'],
    ['exclusiveMaximum', 'less than'],
    ['minLength', 'length at least'],
    ['maxLength', 'length at most'],
    ['minItems', 'at least'],
    ['maxItems', 'at most'],
  ];
  for (const [key, words] of limits) if (typeof s[key] === 'number') facts.push(`${words} ${s[key]}${key.endsWith('Items') ? ' items' : ''}`);
  if (typeof s.pattern === 'string') facts.push(`matches <code>${escapeHtml(s.pattern)}</code>`);
  if ('default' in s) facts.push(`default <code>${escapeHtml(JSON.stringify(s.default))}</code>`);
  return facts.length ? ` <span class="facts">(${facts.join('; ')})</span>` : '';
}

/** A schema as a line (type, constraints, description) and a nested list of its properties or variants. */
export function schemaHtml(s: Json, depth = 0): string {
  const description = typeof s.description === 'string' ? ` <span class="desc">— ${prose(s.description)}</span>` : '';
  return `<span class="type">${typeHtml(s)}</span>${factsHtml(s)}${description}${childrenHtml(s, depth)}`;
}

function childrenHtml(s: Json, depth: number): string {
  // An array's items are drawn in place: "array of object" and then the object's fields.
  const inner = s.type === 'array' ? (obj(s.items) ?? s) : s;
  const variants = (Array.isArray(inner.anyOf) ? inner.anyOf : Array.isArray(inner.oneOf) ? inner.oneOf : undefined)?.map(obj).filter((v): v is Json => !!v);
  const props = obj(inner.properties);
  const extra = obj(inner.additionalProperties);
  const hasChildren = !!variants?.length || (!!props && Object.keys(props).length > 0) || !!extra;
  if (!hasChildren) return '';
  if (depth >= SCHEMA_DEPTH_CAP) return ' <span class="deep">(deeper fields: see openapi.json)</span>';
  const items: string[] = [];
  if (variants) for (const v of variants) items.push(`<li>${schemaHtml(v, depth + 1)}</li>`);
  const required = new Set(Array.isArray(inner.required) ? (inner.required as unknown[]).map(String) : []);
  for (const [name, p] of Object.entries(props ?? {})) {
    const ps = obj(p) ?? {};
    items.push(`<li><code class="prop">${escapeHtml(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''} ${schemaHtml(ps, depth + 1)}</li>`);
  }
  if (extra) items.push(`<li><em>any other key</em> ${schemaHtml(extra, depth + 1)}</li>`);
  return `<ul class="schema">${items.join('')}</ul>`;
}

function contentHtml(content: unknown): string {
  return Object.entries(obj(content) ?? {})
    .map(([type, media]) => {
      const schema = obj(obj(media)?.schema);
      return `<div class="media"><code>${escapeHtml(type)}</code>: ${schema ? schemaHtml(schema) : 'any'}</div>`;
    })
    .join('');
}

function parametersHtml(params: Json[]): string {
  if (!params.length) return '';
  const rows = params
    .map((p) => {
      const schema = obj(p.schema) ?? {};
      return `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${typeHtml(schema)}${factsHtml(schema)}</td><td>${typeof p.description === 'string' ? prose(p.description) : ''}</td></tr>`;
    })
    .join('');
  return `<h3>Parameters</h3><table class="params"><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Required</th><th scope="col">Type</th><th scope="col">Description</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function operationHtml(path: string, method: string, op: Json): string {
  const m = escapeHtml(method);
  const parts: string[] = [];
  if (typeof op.description === 'string') parts.push(`<p>${prose(op.description)}</p>`);
  if (Array.isArray(op.security) && op.security.length === 0) parts.push('<p>No authentication needed.</p>');
  parts.push(parametersHtml(((op.parameters as unknown[]) ?? []).map(obj).filter((p): p is Json => !!p)));
  const body = obj(op.requestBody);
  if (body) parts.push(`<h3>Request body${body.required ? ' (required)' : ''}</h3>${typeof body.description === 'string' ? `<p>${prose(body.description)}</p>` : ''}${contentHtml(body.content)}`);
  const responses = Object.entries(obj(op.responses) ?? {});
  if (responses.length) {
    const items = responses.map(([status, r]) => {
      const res = obj(r) ?? {};
      const schemaRef = typeof res.$ref === 'string' ? ` ${refHtml(res.$ref)}` : '';
      return `<li><strong class="status">${escapeHtml(status)}</strong> ${typeof res.description === 'string' ? prose(res.description) : ''}${schemaRef}${contentHtml(res.content)}</li>`;
    });
    parts.push(`<h3>Responses</h3><ul class="responses">${items.join('')}</ul>`);
  }
  return (
    `<details class="op" data-method="${m}" data-path="${escapeHtml(path)}">` +
    `<summary><span class="method method-${m}">${m.toUpperCase()}</span> <code class="path">${escapeHtml(path)}</code>` +
    `${typeof op.summary === 'string' ? ` <span class="op-summary">${prose(op.summary)}</span>` : ''}</summary>` +
    `<div class="op-body">${parts.join('')}</div></details>`
  );
}

/** What each of the document's security schemes means for a Keelson caller. */
function schemeHtml(name: string, s: Json): string {
  let how: string;
  if (s.type === 'http' && s.scheme === 'bearer') {
    how = 'send <code>Authorization: Bearer &lt;token&gt;</code>; create a token on your <a href="/profile">Profile page</a>.';
  } else if (s.type === 'apiKey' && s.in === 'cookie') {
    how = `the console's session: sign in to the console and the browser sends its cookie <code>${escapeHtml(s.name)}</code>.`;
  } else {
    how = `${escapeHtml(s.type)}${typeof s.scheme === 'string' ? ` (${escapeHtml(s.scheme)})` : ''}.`;
  }
  return `<li><strong>${escapeHtml(name)}</strong>: ${how}${typeof s.description === 'string' ? ` ${prose(s.description)}` : ''}</li>`;
}

/** The whole page, from the document; the header's links (back to the console, to Swagger UI) come from the caller. */
export function referencePage(doc: Json, links: { consoleHome: string; tryUrl: string; documentUrl: string; stylesheet: string }): string {
  const info = obj(doc.info) ?? {};
  const title = typeof info.title === 'string' ? info.title : 'API';
  const paths = obj(doc.paths) ?? {};

  // Operations by their first tag, tags in the document's order, then any it did not list.
  const byTag = new Map<string, string[]>();
  const tagInfo = new Map<string, Json>();
  for (const t of (doc.tags as unknown[]) ?? []) {
    const tag = obj(t);
    if (tag && typeof tag.name === 'string') {
      tagInfo.set(tag.name, tag);
      byTag.set(tag.name, []);
    }
  }
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = obj(obj(item)?.[method]);
      if (!op) continue;
      const tag = Array.isArray(op.tags) && typeof op.tags[0] === 'string' ? op.tags[0] : 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operationHtml(path, method, op));
    }
  }
  const groups = [...byTag].filter(([, ops]) => ops.length > 0);

  const schemes = Object.entries(obj(obj(doc.components)?.securitySchemes) ?? {}).map(([n, s]) => schemeHtml(n, obj(s) ?? {}));
  const schemas = Object.entries(obj(obj(doc.components)?.schemas) ?? {});

  const toc = groups.map(([tag, ops]) => `<li><a href="#${anchor('tag', tag)}">${escapeHtml(tag)}</a> <span class="count">(${ops.length})</span></li>`).join('');
  const sections = groups
    .map(([tag, ops]) => {
      const description = tagInfo.get(tag)?.description;
      return (
        `<section class="tag" id="${anchor('tag', tag)}" data-tag="${escapeHtml(tag)}"><h2>${escapeHtml(tag)}</h2>` +
        `${typeof description === 'string' ? `<p>${prose(description)}</p>` : ''}${ops.join('')}</section>`
      );
    })
    .join('\n');
  const schemaSection = schemas.length
    ? `<section class="schemas" id="schemas"><h2>Schemas</h2>${schemas.map(([n, s]) => `<h3 id="${anchor('schema', n)}">${escapeHtml(n)}</h3><div class="media">${schemaHtml(obj(s) ?? {})}</div>`).join('')}</section>`
    : '';

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${escapeHtml(links.stylesheet)}">
</head>
<body class="keelson-reference">
<header class="keelson-docs-bar"><a href="${escapeHtml(links.consoleHome)}" data-testid="back-to-console">← Back to the Keelson console</a> <a href="${escapeHtml(links.tryUrl)}" data-testid="try-in-swagger">Try requests in Swagger UI</a></header>
<main>
<h1>${escapeHtml(title)}</h1>
<p class="version">Version ${escapeHtml(info.version ?? '')} · <a href="${escapeHtml(links.documentUrl)}">OpenAPI document</a></p>
${typeof info.description === 'string' ? `<p>${prose(info.description)}</p>` : ''}
<h2>Authentication</h2>
<p>Any one of:</p>
<ul>${schemes.join('')}</ul>
<nav aria-labelledby="groups-heading"><h2 id="groups-heading">Operation groups</h2><ul class="groups">${toc}</ul></nav>
${sections}
${schemaSection}
</main>
</body>
</html>
`;
}
