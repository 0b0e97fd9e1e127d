/**
 * What this Keelson instance is, for API clients deciding how to talk to
 * it (Axebow's platform info). Public: it holds nothing private.
 */
import type { Env } from '../env';
import type { PlatformInfo } from './platform.types';

export type { PlatformInfo } from './platform.types';

/** Kept in step with package.json by a test. */
export const PLATFORM_VERSION = '0.1.0';

export class PlatformService {
  constructor(private readonly env: Partial<Pick<Env, 'oidc'>> & { instanceName?: string }) {}

  info(): PlatformInfo {
    return {
      apiVersions: ['1.0-beta'],
      instanceName: this.env.instanceName ?? 'keelson',
      platformVersion: PLATFORM_VERSION,
      oidProviders: this.env.oidc ? [this.env.oidc.name] : [],
      // Environments are Kubernetes clusters reached through the GitOps repository.
      iaasProviders: { kubernetes: { apply: 'gitops' } },
    };
  }
}
