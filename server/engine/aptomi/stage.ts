/**
 * The resolve stage (Aptomi): claims × services × bundles × rules →
 * instances and per-claim outcomes with decision traces (resolve/), over
 * the kinds of model/sources/aptomi.ts. The one stage that absorbs a change
 * in place: when only claims changed, only they are resolved again.
 */
import { CAPACT_INPUT_KINDS } from '../capact/input';
import { APTOMI } from '../model/sources/aptomi';
import { claimsOf, ResolveSession, type PolicyInput, type PolicyObjectInput } from '../resolve';
import { claimKey } from '../resolve/claim';
import type { SourceStage } from '../stage';

/** Aptomi's resolve stage: claims → instances, incrementally when only claims change. */
export const APTOMI_RESOLVE: SourceStage = {
  source: 'aptomi',
  stage: 'resolve',
  start(input, opts) {
    const session = new ResolveSession(input as PolicyInput, opts);
    return {
      output: () => session.state(),
      update(change) {
        // Capact's Hub and Global policy decide what interface components deploy: a change there starts over.
        if ([...change.upserts, ...change.deletes].some((o) => CAPACT_INPUT_KINDS.has(o.kind))) return false;
        // Objects of other sources do not reach this stage; of its own, only claims can change in place.
        const upserts = change.upserts.filter((o) => isAptomiKind(o.kind));
        const deletes = change.deletes.filter((o) => isAptomiKind(o.kind));
        if (!upserts.every((o) => o.kind === 'claim') || !deletes.every((o) => o.kind === 'claim')) return false;
        if (change.deployedClaims) session.setDeployedClaims(change.deployedClaims);
        // Even a change of nothing here: claims that ran out of their time are resolved again.
        session.absorbClaims({ upserts: claimsOf(upserts as readonly PolicyObjectInput[]), deletes: deletes.map((d) => claimKey(d)) });
        return true;
      },
      explain: (key) => session.explain(key),
    };
  },
};

function isAptomiKind(kind: string): boolean {
  return Object.hasOwn(APTOMI.kinds, kind);
}
