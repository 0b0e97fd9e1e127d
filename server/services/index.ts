/**
 * All services, wired to one set of repositories (drizzle or in memory:
 * every service works on either, none is optional).
 */
import type { Env } from '../env';
import { OIDC_PROVIDER_ID } from '../auth/identity';
import { oidcVerifier, type IdentityVerifier } from '../auth/oidc-verify';
import { createResolver } from '../resolver';
import type { Repos } from '../repo/types';
import { AccessService } from './access';
import { PolicyAdmission } from './admission';
import { ClaimService } from './claims';
import { GraphService } from './graphs';
import { DeploymentService } from './axebow';
import { LinkService } from './axebow/links';
import { CapactService } from './capact';
import { LandscaperService } from './landscaper';
import { DmService } from './dm';
import { TemplateFetcher } from './dm-templates';
import { EstateService } from './estate';
import { ResourceService } from './resources';
import { SessionService } from './sessions';
import { TokenService } from './tokens';
import { signInLimiter } from '../auth/rate-limit';
import { SecretBox } from '../db/secret-box';
import { randomBytes } from 'node:crypto';
import { PlatformService } from './platform';
import { PolicyService } from './policy';
import { ResolutionService } from './resolution';
import { RevisionService } from './revisions';
import { TenantService } from './tenants';
import { UserService } from './users';

export interface Services {
  policy: PolicyService;
  users: UserService;
  resolution: ResolutionService;
  /** Claims' outcomes as the console shows them (over the resolution, redacted per reader). */
  claims: ClaimService;
  revisions: RevisionService;
  graphs: GraphService;
  access: AccessService;
  tenants: TenantService;
  platform: PlatformService;
  /** Tenants' accounts and deployment environments. */
  estate: EstateService;
  /** Axebow services: tenants' claims, addressed by tenant and name. */
  deployments: DeploymentService;
  links: LinkService;
  capact: CapactService;
  landscaper: LandscaperService;
  dm: DmService;
  /** Tenants' registered resources. */
  resources: ResourceService;
  /** API tokens (bearer credentials). */
  tokens: TokenService;
  /** Console sessions (one per sign-in; ended on the server). */
  sessions: SessionService;
}

export function createServices(
  repos: Repos,
  env: Pick<Env, 'usersFile' | 'domainAdmins'> & Partial<Pick<Env, 'demoUsers' | 'freeNamespaces' | 'resolver' | 'oidc' | 'secretKey' | 'dmTemplates' | 'platform'>> & { identityVerifiers?: IdentityVerifier[] },
): Services {
  const users = new UserService(repos, env, env.identityVerifiers ?? (env.oidc ? [oidcVerifier({ provider: OIDC_PROVIDER_ID, issuer: env.oidc.issuer, clientId: env.oidc.clientId })] : []));
  const access = new AccessService(repos, env.domainAdmins);
  const policyUsers = () => users.policyUsers();
  // One pool of threads: resolutions, and (on lanes of its own) request text read after its writer's rights (admission.ts).
  const resolver = createResolver(env.resolver);
  const resolution = new ResolutionService(repos, policyUsers, env.domainAdmins, () => access.tenantGrants(), resolver);
  // Conflicts on shared instances are weighed against what the accepted revision deploys (stability first).
  resolution.readDeployedGenerationFrom(async () => {
    const { acceptedRevisionId } = await repos.revisions.head();
    return acceptedRevisionId === null ? null : ((await repos.revisions.get(acceptedRevisionId))?.generation ?? null);
  });
  const admission = new PolicyAdmission(access, resolver);
  // Every new generation is resolved right away, in the background, and becomes a revision.
  const policy = new PolicyService(
    repos,
    (generation, opts) => {
      resolution.schedule(generation, opts.author?.id);
      revisions.schedule(generation, opts.accept && opts.author ? { autoAcceptBy: opts.author } : {});
    },
    access,
    { fetcher: new TemplateFetcher(env.dmTemplates ?? {}), expand: (input, e, validateSchema) => resolution.expandDm(input, e, validateSchema) },
    admission,
  );
  const revisions: RevisionService = new RevisionService(repos, resolution, access, async (actor, generation, message) =>
    policy.restore(actor, { generation, baseGeneration: await repos.policy.head(), message: message ?? `Roll back to generation ${generation}` }),
    admission,
  );
  // A generation's revision (which its writer waits for) goes to the database before its resolution (a cache).
  resolution.storeResolutionsAfter((generation) => revisions.computing(generation));
  const tenants = new TenantService(repos, access, policyUsers, env.freeNamespaces ?? []);
  const claims = new ClaimService(resolution, access);
  const platform = new PlatformService(env);
  const estate = new EstateService(repos, access, revisions);
  const links = new LinkService(repos, access);
  const deployments = new DeploymentService(repos, access, policy, resolution, claims, revisions, estate, links, resolver);
  // Without a configured key (tests, in-memory use) secrets are sealed under one that lives as long as the process.
  const resources = new ResourceService(repos, access, new SecretBox(env.secretKey ?? randomBytes(32)));
  const tokens = new TokenService(repos, access, users, signInLimiter());
  const sessions = new SessionService(repos, access, users);
  return { policy, users, resolution, claims, revisions, graphs: new GraphService(repos, resolution, access), access, tenants, platform, estate, deployments, links, resources, tokens, sessions, capact: new CapactService(repos, admission, resolver), landscaper: new LandscaperService(repos, access, resolver), dm: new DmService(repos, resolution, access, { policy, revisions }) };
}
