/**
 * The OpenAPI 3.1 document of the REST API, generated from the routes' own
 * zod schemas (the ones that validate requests and answers), so the
 * documentation cannot drift from what the server does.
 */
import { z } from 'zod';
import { PLATFORM_VERSION } from '../services/platform';
import { API_PREFIX, API_VERSION } from './dispatch';
import { DM_PREFIX, DM_ROUTES } from './dm';
import type { RestForm, RestRoute } from './route';

type Json = Record<string, unknown>;

function schemaOf(s: z.ZodType, io: 'input' | 'output', defs?: Record<string, Json>): Json {
  const out = z.toJSONSchema(s, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    // Dates travel as ISO 8601 text in JSON.
    override: (ctx) => {
      const def = (ctx.zodSchema as { _zod?: { def?: { type?: string } } })._zod?.def;
      if (def?.type === 'date') {
        ctx.jsonSchema.type = 'string';
        ctx.jsonSchema.format = 'date-time';
      }
    },
  }) as Json;
  delete out.$schema;
  return defs ? hoistDefs(out, defs) : out;
}

/**
 * A recursive schema (DM's layout) comes with `$defs` and `#/$defs/…`
 * references, which would resolve against the document's root, where no
 * `$defs` is: its definitions move to the document's components, under
 * names unique in the document.
 */
function hoistDefs(schema: Json, defs: Record<string, Json>): Json {
  const local = schema.$defs as Record<string, Json> | undefined;
  if (!local) return schema;
  delete schema.$defs;
  const names = Object.fromEntries(Object.keys(local).map((k, i) => [k, `Def${Object.keys(defs).length + i}`]));
  const moved = (j: Json): Json => JSON.parse(JSON.stringify(j).replace(/"#\/\$defs\/([^"]+)"/g, (m, k: string) => (names[k] ? `"#/components/schemas/${names[k]}"` : m))) as Json;
  for (const [k, d] of Object.entries(local)) defs[names[k]!] = moved(d);
  return moved(schema);
}

/** Path and query parameters from a zod object's fields. */
/** A multipart form as OpenAPI describes one: file parts are binary strings. */
function formSchema(form: RestForm): Json {
  const properties: Record<string, Json> = {};
  for (const [name, f] of Object.entries(form.fields)) properties[name] = { type: 'string', ...(f.file ? { format: 'binary' } : {}), description: f.description };
  const required = Object.entries(form.fields).filter(([, f]) => f.required).map(([n]) => n);
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

function parameters(where: 'path' | 'query', s: z.ZodType | undefined): Json[] {
  if (!s) return [];
  const json = schemaOf(s, 'input');
  const props = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(props).map(([name, schema]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    schema,
  }));
}

const ERROR_BODY: Json = {
  type: 'object',
  required: ['code', 'content'],
  properties: {
    code: { type: 'string', description: 'Unauthenticated, Forbidden, NotFound, Conflict, BadRequest, UnsupportedMediaType, TooManyRequests…' },
    content: { type: 'object', required: ['message'], properties: { message: { type: 'string' } }, additionalProperties: true },
  },
};

const EVENTS: Json = {
  type: 'array',
  items: {
    type: 'object',
    required: ['message', 'level'],
    properties: { message: {}, level: { type: 'string', enum: ['ERROR', 'WARNING', 'INFO'] } },
  },
};

const errorResponse = (description: string): Json => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });

/** APIs served beside the Axebow-style one, in another system's shape, documented in the same document. */
const FOREIGN_APIS: readonly { prefix: string; routes: readonly RestRoute[] }[] = [{ prefix: DM_PREFIX, routes: DM_ROUTES }];

export function openApiDocument(routes: readonly RestRoute[], foreign = FOREIGN_APIS): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const defs: Record<string, Json> = {};
  for (const [prefix, r] of [...routes.map((r) => [API_PREFIX, r] as const), ...foreign.flatMap((f) => f.routes.map((r) => [f.prefix, r] as const))]) {
    const path = prefix + r.path.replace(/:(\w+)/g, '{$1}');
    const status = String(r.status ?? 200);
    const data = r.response ? schemaOf(r.response, 'output', defs) : undefined;
    const op: Json = {
      // A foreign API's operations are named after their tag too (postDmDeployments), apart from the Axebow-style ones.
      operationId: `${r.method.toLowerCase()}${prefix === API_PREFIX ? '' : r.tag.charAt(0).toUpperCase() + r.tag.slice(1)}${r.path.replace(/[/:](\w)/g, (_, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, '')}`,
      summary: r.summary,
      description: `Who may call it: ${r.access}.`,
      tags: [r.tag],
      parameters: [...parameters('path', r.params), ...parameters('query', r.query)],
      ...(r.body || r.form
        ? {
            requestBody: {
              required: true,
              content: {
                ...(r.body ? { 'application/json': { schema: schemaOf(r.body, 'input', defs) } } : {}),
                ...(r.form ? { 'multipart/form-data': { schema: formSchema(r.form) } } : {}),
              },
            },
          }
        : {}),
      responses: {
        [status]: {
          description: 'Success',
          // A foreign API's shape (DM's): the data is the body.
          content: { 'application/json': { schema: r.envelope === false ? (data ?? {}) : { type: 'object', properties: { ...(data ? { data } : {}), events: EVENTS } } } },
        },
        '400': errorResponse('The request is invalid (path, query or body); content.issues lists each problem'),
        ...(r.auth === 'user' ? { '401': errorResponse('Not authenticated'), '403': errorResponse('Not allowed') } : {}),
        '404': errorResponse('Nothing there'),
        '409': errorResponse('Conflicts with the current state'),
        '429': errorResponse('Too many requests; Retry-After says when to try again'),
        ...Object.fromEntries(Object.entries(r.errors ?? {}).map(([status, description]) => [status, errorResponse(description)])),
      },
      ...(r.auth === 'public' ? { security: [] } : {}),
    };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Keelson API',
      version: `${API_VERSION} (Keelson ${PLATFORM_VERSION})`,
      description:
        'The Axebow-style REST API of Keelson. Successful answers are `{data?, events?}`; errors are `{code, content}`. ' +
        'Authenticate with the console session cookie or `Authorization: Bearer <token>` (create tokens on your profile page, ' +
        `or POST ${API_PREFIX}/auth/token with a local user's name and password). ` +
        `Deployment Manager's API (tag dm, under ${DM_PREFIX}) answers in DM's shape: the body is the data.`,
    },
    servers: [{ url: '/' }],
    tags: [...new Set([...routes, ...foreign.flatMap((f) => f.routes)].map((r) => r.tag))].map((name) => ({ name })),
    components: {
      schemas: { ErrorBody: ERROR_BODY, ...defs },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        session: { type: 'apiKey', in: 'cookie', name: 'next-auth.session-token' },
      },
    },
    security: [{ bearer: [] }, { session: [] }],
    paths,
  };
}
