import { z } from 'zod';
import { profileOutput, userSummaryOutput } from '../../services/users.types';
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
];
