/**
 * What this Keelson instance is, for API clients deciding how to talk to
 * it (Axebow's platform info). Public: it holds nothing private.
 */
import { parseLimits, parsePortRange, PLATFORM_DEFAULTS, type Env, type PlatformSettings } from '../env';
import type { PlatformInfo } from './platform.types';

export type { PlatformInfo } from './platform.types';

/** Kept in step with package.json by a test. */
export const PLATFORM_VERSION = '0.1.0';

/** The settings of an instance configured with nothing (server/env.ts gives the same). */
function defaults(): PlatformSettings {
  const limits = parseLimits(PLATFORM_DEFAULTS.freemiumLimits);
  const ports = parsePortRange(PLATFORM_DEFAULTS.portRange);
  if (!limits.ok || !ports.ok) throw new Error('PLATFORM_DEFAULTS do not parse');
  return { freemiumLimits: limits.value, freemiumAdvancedLimits: limits.value, portRange: ports.value, referenceDomain: 'localhost' };
}

export class PlatformService {
  private readonly settings: PlatformSettings;

  constructor(private readonly env: Partial<Pick<Env, 'oidc' | 'platform'>> & { instanceName?: string }) {
    this.settings = env.platform ?? defaults();
  }

  info(): PlatformInfo {
    const s = this.settings;
    return {
      apiVersions: ['1.0-beta'],
      instanceName: this.env.instanceName ?? 'keelson',
      platformVersion: PLATFORM_VERSION,
      oidProviders: this.env.oidc ? [this.env.oidc.name] : [],
      // Environments are Kubernetes clusters reached through the GitOps repository.
      iaasProviders: { kubernetes: { apply: 'gitops' } },
      freemiumAdvancedLimits: s.freemiumAdvancedLimits,
      freemiumLimits: s.freemiumLimits,
      portRange: [...s.portRange],
      referenceDomain: s.referenceDomain,
    };
  }
}
