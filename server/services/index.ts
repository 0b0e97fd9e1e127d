/** All services, wired to one set of repositories. */
import type { Env } from '../env';
import type { Repos } from '../repo/types';
import { PolicyService } from './policy';
import { ResolutionService } from './resolution';
import { UserService } from './users';

export interface Services {
  policy: PolicyService;
  users: UserService;
  resolution: ResolutionService;
}

export function createServices(repos: Repos, env: Pick<Env, 'usersFile' | 'domainAdmins'>): Services {
  const users = new UserService(repos, env);
  const resolution = new ResolutionService(repos, () => users.policyUsers(), env.domainAdmins);
  // Every new generation is resolved right away, in the background.
  const policy = new PolicyService(repos, (generation) => resolution.schedule(generation));
  return { policy, users, resolution };
}
