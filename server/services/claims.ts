/**
 * Claims as the console and the CLI read them: the outcomes of a
 * generation, and one claim with its decision trace and the instances it
 * uses — what the resolution computed, summarised or redacted for the
 * reader. Computing resolutions is ResolutionService's; this service only
 * shapes what it holds.
 */
import type { AccessService } from './access';
import type { MaybeActor } from './actor';
import { unauthorized } from '../errors';
import type { ResolutionService } from './resolution';
import type { ClaimInput, ClaimsInput, ClaimsView, ClaimView } from './resolution.types';

export class ClaimService {
  constructor(
    private readonly resolution: ResolutionService,
    private readonly access: AccessService,
  ) {}

  /** Claims' outcomes and counts of a generation (default: the newest); instances are counted, not sent. */
  async list(actor: MaybeActor, input: ClaimsInput = {}): Promise<ClaimsView> {
    const r = await this.resolution.get(actor, input.generation);
    return {
      generation: r.generation,
      durationMs: r.durationMs,
      counts: { total: r.claimsTotal, resolved: r.claimsResolved, rejected: r.claimsRejected, error: r.claimsError, instances: r.instances },
      claims: r.state.claims.map(({ trace: _t, ...c }) => ({ ...c, instanceCount: c.instances.length })),
    };
  }

  /** One claim's outcome with its decision trace, and its instances (secret-rendered parameters redacted for readers who may not manage them). */
  /** A claim's outcome and instances; `trace: false` leaves the decision trace out (it costs a resolution). */
  async get(actor: MaybeActor, input: ClaimInput, opts: { trace?: boolean } = {}): Promise<ClaimView> {
    if (!actor) throw unauthorized('see resolutions');
    const { generation, outcome } = await this.resolution.claim(actor, input, opts);
    const r = await this.resolution.get(actor, generation);
    const mine = new Set(outcome.instances);
    const instances = await this.access.redactSensitive(actor, r.state.instances.filter((i) => mine.has(i.key)));
    return { generation, outcome, instances };
  }
}
