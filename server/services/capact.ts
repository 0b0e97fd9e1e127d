/**
 * Capact on the stored policy: the Hub (Interfaces, Implementations, Types,
 * Attributes, TypeInstances) and the Global policy `policy/system/global`
 * as saved, and "try it" — which Implementation an Interface resolves to,
 * with the explanation — optionally under a draft of the policy being
 * edited, so the console can answer as the user types.
 *
 * What it returns names TypeInstances by id and Type only: their values
 * (credentials) stay with the objects, which only domain admins see whole.
 *
 * Reading the Hub is done on a resolver thread (server/resolver), like
 * every evaluation of stored policy, and kept per generation.
 */
import { CAPACT_INPUT_KINDS } from '../engine/capact/input';
import type { TryItInput, TryItResult } from '../engine/capact/try';
import { InlineResolver, isResolverFailure, type Resolver } from '../resolver';
import type { Repos } from '../repo/types';
import type { MaybeActor } from './actor';
import { AccessService } from './access';
import { PolicyAdmission } from './admission';
import { AppError, unauthorized } from '../errors';

export { GLOBAL_POLICY, type TryItInput, type TryItResult } from '../engine/capact/try';

export class CapactService {
  /** The Interfaces of the newest generation read. */
  private interfacesOf: { generation: number; list: Promise<{ path: string; revisions: string[] }[]> } | undefined;

  constructor(
    private readonly repos: Repos,
    private readonly admission: PolicyAdmission = new PolicyAdmission(new AccessService(repos, []), new InlineResolver()),
    private readonly resolver: Pick<Resolver, 'run'> = new InlineResolver(),
  ) {}

  /** The stored Hub and Global policy (every kind Capact's reading takes). */
  private async stored() {
    return (await Promise.all([...CAPACT_INPUT_KINDS].map((kind) => this.repos.policy.listObjects({ kind })))).flat();
  }

  /** The Interfaces of the Hub, newest revision first per path: what can be asked for. */
  async interfaces(actor: MaybeActor): Promise<{ path: string; revisions: string[] }[]> {
    if (!actor) throw unauthorized('read the Hub');
    const generation = await this.repos.policy.head();
    if (this.interfacesOf?.generation !== generation) {
      const list = this.readInterfaces();
      this.interfacesOf = { generation, list };
      // A failed read is not kept: the next request tries again.
      list.catch(() => {
        if (this.interfacesOf?.list === list) this.interfacesOf = undefined;
      });
    }
    return this.interfacesOf.list;
  }

  private async readInterfaces(): Promise<{ path: string; revisions: string[] }[]> {
    const objects = (await this.stored()).map(({ kind, namespace, name, spec }) => ({ kind, namespace, name, spec }));
    try {
      return await this.resolver.run({ op: 'capactInterfaces', objects });
    } catch (e) {
      if (isResolverFailure(e)) throw new AppError('LIMIT_EXCEEDED', `The stored Hub could not be read: ${e.reason}.`);
      throw e;
    }
  }

  /** The choice is made where request text is read (a draft, an Action policy): ./admission.ts. */
  async tryIt(actor: MaybeActor, input: TryItInput): Promise<TryItResult> {
    if (!actor) throw unauthorized('try Capact policies');
    const r = await this.admission.tryCapact(actor, () => this.stored(), input);
    if ('hubError' in r) throw new AppError('CONFLICT', `The stored Hub cannot be read: ${r.hubError}`);
    return r;
  }
}
