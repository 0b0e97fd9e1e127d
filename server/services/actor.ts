/** Who is asking. `null` means an anonymous request. */
export interface Actor {
  /** Stable id: `local:<name>` or `oidc:<issuer>#<subject>`. */
  id: string;
  /** The name policy uses (claims' `user` field, criteria, ACL). */
  name: string;
  labels: Record<string, string>;
  provider: 'local' | 'oidc' | 'test';
  /** What the console shows (an OIDC profile's name); never used to decide anything. */
  displayName?: string;
}

export type MaybeActor = Actor | null;
