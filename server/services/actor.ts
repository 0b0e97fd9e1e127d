/** Who is asking. `null` means an anonymous request. */
export interface Actor {
  /** Stable id: `local:<name>` or `oidc:<subject>`. */
  id: string;
  /** The name policy uses (claims' `user` field, criteria, ACL). */
  name: string;
  labels: Record<string, string>;
  provider: 'local' | 'oidc' | 'test';
}

export type MaybeActor = Actor | null;
