/**
 * Capact on the stored policy: the Hub (Interfaces, Implementations, Types,
 * Attributes, TypeInstances) and the Global policy `policy/system/global`
 * as saved, and "try it" — which Implementation an Interface resolves to,
 * with the explanation — optionally under a draft of the policy being
 * edited, so the console can answer as the user types.
 *
 * What it returns names TypeInstances by id and Type only: their values
 * (credentials) stay with the objects, which only domain admins see whole.
 */
import { CAPACT_INPUT_KINDS, capactInputOf } from '../engine/resolve/capact';
import type { TryItInput, TryItResult } from '../engine/resolve/capact-try';
import { InlineResolver } from '../resolver';
import type { Repos } from '../repo/types';
import type { MaybeActor } from './actor';
import { AccessService } from './access';
import { PolicyAdmission } from './admission';
import { AppError, unauthorized } from './errors';

export { GLOBAL_POLICY, type TryItInput, type TryItResult } from '../engine/resolve/capact-try';

export class CapactService {
  constructor(
    private readonly repos: Repos,
    private readonly admission: PolicyAdmission = new PolicyAdmission(new AccessService(repos, []), new InlineResolver()),
  ) {}

  /** The stored Hub and Global policy (every kind Capact's reading takes). */
  private async stored() {
    return (await Promise.all([...CAPACT_INPUT_KINDS].map((kind) => this.repos.policy.listObjects({ kind })))).flat();
  }

  /** The Interfaces of the Hub, newest revision first per path: what can be asked for. */
  async interfaces(actor: MaybeActor): Promise<{ path: string; revisions: string[] }[]> {
    if (!actor) throw unauthorized('read the Hub');
    const { hub } = capactInputOf(await this.stored());
    return Object.entries(hub.interfaces)
      .map(([path, revs]) => ({ path, revisions: revs.map((r) => r.revision) }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The choice is made where request text is read (a draft, an Action policy): ./admission.ts. */
  async tryIt(actor: MaybeActor, input: TryItInput): Promise<TryItResult> {
    if (!actor) throw unauthorized('try Capact policies');
    const r = await this.admission.tryCapact(actor, () => this.stored(), input);
    if ('hubError' in r) throw new AppError('CONFLICT', `The stored Hub cannot be read: ${r.hubError}`);
    return r;
  }
}
