/**
 * API tokens over REST: a local user trades name and password for a token
 * (`keelson login`), and any signed-in user lists, creates and revokes
 * their own. Tokens act for their user, with that user's current rights.
 */
import { z } from 'zod';
import { createTokenInput, newTokenOutput, passwordGrantInput, passwordGrantOutput, tokenOutput } from '../../services/tokens.types';
import { route } from '../route';

export const authRoutes = [
  route({
    method: 'POST',
    path: '/auth/token',
    tag: 'auth',
    summary: 'A 30-day token for a local user’s name and password (401 when wrong; 429 after repeated failures, as sign-in)',
    auth: 'public',
    access: 'anyone holding a local user’s password',
    body: passwordGrantInput,
    response: passwordGrantOutput,
    async handler({ services, address }, { body }) {
      return { data: await services.tokens.issueForPassword({ ...body, address }) };
    },
  }),
  route({
    method: 'GET',
    path: '/user/token',
    tag: 'auth',
    summary: 'The caller’s API tokens (never their values)',
    auth: 'user',
    access: 'any signed-in user (their own tokens)',
    response: z.array(tokenOutput),
    async handler({ actor, services }) {
      return { data: await services.tokens.list(actor) };
    },
  }),
  route({
    method: 'POST',
    path: '/user/token',
    tag: 'auth',
    summary: 'Create an API token; its value is in this answer only',
    auth: 'user',
    access: 'any signed-in user (a token for themselves)',
    body: createTokenInput,
    response: newTokenOutput,
    status: 201,
    async handler({ actor, services }, { body }) {
      return { data: await services.tokens.create(actor, body) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/user/token/:id',
    tag: 'auth',
    summary: 'Revoke an API token',
    auth: 'user',
    access: 'the token’s owner; domain admins may revoke anyone’s',
    params: z.object({ id: z.coerce.number().int().min(1) }),
    response: tokenOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.tokens.revoke(actor, params.id) };
    },
  }),
];
