/**
 * REST routes of the Axebow-style API (`/api/1.0-beta/…`): a second door
 * into the same services as tRPC, with no logic of its own. A route names
 * its method and path, the zod schemas of its path parameters, query and
 * body (the services' own `*.types.ts` where they exist), the schema of the
 * `data` it answers, who may call it (documented, and checked row by row by
 * the authorisation matrix test), and one handler that calls one service.
 * The OpenAPI document is generated from these same declarations.
 */
import type { z } from 'zod';
import type { MaybeActor } from '../services/actor';
import type { Services } from '../services';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** An event reported beside `data` (Axebow: `{message, level}`). */
export interface RestEvent {
  message: unknown;
  level: 'ERROR' | 'WARNING' | 'INFO';
}

export interface RestContext {
  actor: MaybeActor;
  services: Services;
  /** The client's address (KEELSON_TRUSTED_PROXIES decides which hop), for sign-in limits. */
  address: string;
  /** How the caller proved who they are: an API token, or the console's session. */
  via: 'token' | 'session';
}

export interface RestInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The parsed multipart form, when the route takes one and the request sent one (then `body` is undefined). */
  form?: unknown;
}

/** A file part of a multipart form, as a route's form schema receives it. */
export interface FormFile {
  filename: string;
  type: string;
  bytes: Uint8Array;
}

/**
 * A multipart/form-data body a route also accepts (beside JSON): its zod
 * schema over `{ field: string | FormFile }`, and each field described for
 * the API documentation.
 */
export interface RestForm {
  schema: z.ZodType;
  fields: Record<string, { file?: boolean; required?: boolean; description: string }>;
}

/** What a handler answers: the `data` (and optional events and status) of a 2xx response. */
export interface RestResult<R> {
  /** Frozen (a list shared by many readers) is checked and serialised once (dispatch.ts). */
  data?: R | Readonly<R>;
  events?: RestEvent[];
  /** Default: the route's `status`. */
  status?: number;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RestRoute<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: HttpMethod;
  /** Below the version prefix, with `:name` parameters: `/tenant/:tenant/user/:user`. */
  path: string;
  /** One line for the API documentation. */
  summary: string;
  /** Groups routes in the documentation (`platform`, `users`, `tenants`…). */
  tag: string;
  /** `public`: no authentication needed; `user`: a signed-in user or a bearer token. */
  auth: 'public' | 'user';
  /** Who may call it, in words (the authorisation matrix test holds the rows). */
  access: string;
  params?: P;
  query?: Q;
  body?: B;
  /** A multipart form accepted instead of the JSON body (Axebow's bundle upload). */
  form?: RestForm;
  /** Schema of `data` in a successful answer; undefined when the answer has no data. */
  response?: R;
  /** Success status (200 unless it creates: 201, or accepts work for later: 202). */
  status?: number;
  /** Refusals particular to this route (status → what it means), documented beside the common ones. */
  errors?: Record<string, string>;
  /** false: answer `data` as the whole body (another API's shape, as DM's), not `{data, events}`. */
  envelope?: false;
  handler(ctx: RestContext, input: RestInput<Out<P>, Out<Q>, Out<B>>): Promise<RestResult<Out<R>>>;
}

/** Typed identity: keeps each route's schemas tied to its handler's input and output. */
export function route<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
>(r: RestRoute<P, Q, B, R>): RestRoute {
  return r as unknown as RestRoute;
}
