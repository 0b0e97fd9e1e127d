import { z } from 'zod';
import { okOutput } from '../../services/tenants.types';
import { profileOutput, registerInput, userSummaryOutput } from '../../services/users.types';
import { route } from '../route';

export const userRoutes = [
  route({
    method: 'GET',
    path: '/user/info',
    tag: 'users',
    summary: 'The calling user: id, name, sign-in provider, email, labels',
    auth: 'user',
    access: 'any signed-in user (their own information)',
    response: profileOutput,
    async handler({ actor, services }) {
      return { data: await services.users.profile(actor) };
    },
  }),
  route({
    method: 'GET',
    path: '/user',
    tag: 'users',
    summary: 'Every user of the platform (names, providers, labels; never secrets)',
    auth: 'user',
    access: 'operators (domain admins)',
    response: z.array(userSummaryOutput),
    async handler({ actor, services }) {
      return { data: await services.users.list(actor, services.access) };
    },
  }),
  route({
    method: 'POST',
    path: '/user',
    tag: 'users',
    summary: 'Register the calling user with a profile (once; 409 after)',
    auth: 'user',
    access: 'any signed-in user (themselves)',
    body: registerInput,
    response: z.object({ userid: z.string() }),
    status: 201,
    async handler({ actor, services }, { body }) {
      return { data: await services.users.register(actor, body) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/user',
    tag: 'users',
    summary: 'Remove the calling user: memberships, tokens, registration (refused while the last owner of a tenant)',
    auth: 'user',
    access: 'any signed-in user (themselves)',
    response: okOutput,
    async handler({ actor, services }) {
      return { data: await services.users.remove(actor) };
    },
  }),
  route({
    method: 'POST',
    path: '/user/provider',
    tag: 'users',
    summary: 'Link an OpenID provider identity to the calling user: an ID token the provider signed for this platform, unexpired. Signing in with it then acts as this user',
    auth: 'user',
    access: 'a user signed in to the console (their own profiles; not with an API token)',
    body: z.object({ jwt: z.string().min(1).max(16 * 1024) }).strict(),
    response: z.object({ ok: z.literal(true), provider: z.string() }),
    status: 201,
    async handler({ actor, services, via }, { body }) {
      return { data: await services.users.addProfile(actor, body, via) };
    },
  }),
  route({
    method: 'DELETE',
    path: '/user/provider/:oidp',
    tag: 'users',
    summary: 'Unlink a provider profile (never the one the user signs in with natively)',
    auth: 'user',
    access: 'any signed-in user (their own profiles)',
    params: z.object({ oidp: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be a provider id') }),
    response: okOutput,
    async handler({ actor, services }, { params }) {
      return { data: await services.users.removeProfile(actor, params.oidp) };
    },
  }),
];
