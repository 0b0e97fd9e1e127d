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
];
