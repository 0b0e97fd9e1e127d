/** All services, wired to one set of repositories. */
import type { Env } from '../env';
import type { Repos } from '../repo/types';
import { PolicyService } from './policy';
import { UserService } from './users';

export interface Services {
  policy: PolicyService;
  users: UserService;
}

export function createServices(repos: Repos, env: Pick<Env, 'usersFile' | 'domainAdmins'>): Services {
  return {
    policy: new PolicyService(repos),
    users: new UserService(repos, env),
  };
}
