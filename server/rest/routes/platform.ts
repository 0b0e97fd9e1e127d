import { platformInfoOutput } from '../../services/platform.types';
import { route } from '../route';

/** What the platform is, for clients choosing how to talk to it: no sign-in needed, nothing private. */
export const platformRoutes = [
  route({
    method: 'GET',
    path: '/platform',
    tag: 'platform',
    summary: 'Platform information: API versions, instance name, version, sign-in providers',
    auth: 'public',
    access: 'anyone',
    response: platformInfoOutput,
    async handler({ services }) {
      return { data: services.platform.info() };
    },
  }),
];
