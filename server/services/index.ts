/** All services, wired to one set of repositories. */
import type { Env } from '../env';
import type { RevisionRepo } from '../repo/revisions';
import type { TenantRepo } from '../repo/tenants';
import { AccessService } from './access';
import { TenantService } from './tenants';
import type { Repos } from '../repo/types';
import { GraphService } from './graphs';
import { PolicyService } from './policy';
import { createResolver } from '../resolver';
import { ResolutionService } from './resolution';
import { RevisionService } from './revisions';
import { UserService } from './users';

export interface Services {
  policy: PolicyService;
  users: UserService;
  resolution: ResolutionService;
  /** Absent with in-memory repositories (revisions need the database's locking). */
  revisions?: RevisionService;
  graphs: GraphService;
  access: AccessService;
  /** Absent with in-memory repositories. */
  tenants?: TenantService;
}

export function createServices(
  repos: Repos,
  env: Pick<Env, 'usersFile' | 'domainAdmins'> & Partial<Pick<Env, 'demoUsers' | 'freeNamespaces' | 'resolver'>>,
  revisionRepo?: RevisionRepo,
  tenantRepo?: TenantRepo,
): Services {
  const users = new UserService(repos, env);
  const access = new AccessService(repos, env.domainAdmins, tenantRepo);
  const policyUsers = () => users.policyUsers();
  const resolution = new ResolutionService(repos, policyUsers, env.domainAdmins, () => access.tenantGrants(), createResolver(env.resolver));
  let revisions: RevisionService | undefined;
  // Every new generation is resolved right away, in the background, and becomes a revision.
  const policy = new PolicyService(
    repos,
    (generation, opts) => {
      resolution.schedule(generation);
      revisions?.schedule(generation, opts.accept && opts.author ? { autoAcceptBy: opts.author } : {});
    },
    access,
  );
  if (revisionRepo) {
    revisions = new RevisionService(repos, revisionRepo, resolution, access, async (actor, generation, message) =>
      policy.restore(actor, { generation, baseGeneration: await repos.policy.head(), message: message ?? `Roll back to generation ${generation}` }),
    );
  }
  const tenants = tenantRepo ? new TenantService(tenantRepo, access, revisionRepo, policyUsers, env.freeNamespaces ?? []) : undefined;
  return { policy, users, resolution, revisions, graphs: new GraphService(repos, resolution, access, revisionRepo), access, tenants };
}
