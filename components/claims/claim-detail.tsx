'use client';
/**
 * One claim: its outcome, the instances it uses, and the decision trace —
 * every context tried and why, the rules that matched and what they
 * changed, the keys and the target chosen, level by level.
 */
import { DeploymentLayout } from '../dm/deployment-layout';
import { useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useTRPC } from '@/components/trpc/client';
import { objectHref } from '../objects/links';
import { ErrorState, LoadingState } from '../ui/states';
import type { RequestKind } from '@/server/services/resolution.types';
import { ClaimStatus } from './status';
import { DecisionTrace } from './trace';
import { Failures } from './failures';

export function ClaimDetail(props: { kind: RequestKind; namespace: string; name: string; generation?: number }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.resolution.claim.queryOptions(props));
  if (q.isPending) return <LoadingState label="Resolving the claim…" />;
  if (q.isError) return <ErrorState error={q.error} retry={() => q.refetch()} />;
  const { outcome, instances, generation } = q.data;
  // A Capact action is listed with the claims (it requests an Interface as a claim requests a service).
  const requestKind = (outcome as { kind?: 'action' | 'installation' | 'deployment' }).kind;
  const isAction = requestKind === 'action';
  return (
    <>
      <div className="page-head">
        <div>
          <div className="breadcrumbs">
            <Link href="/claims">Claims</Link> / {outcome.namespace}
          </div>
          <h1>
            {outcome.namespace}/{outcome.name} <ClaimStatus status={outcome.status} />
          </h1>
          <p>
            {isAction ? (
              <>
                Capact action requesting <strong>{outcome.service.replace(/^interface /, '')}</strong> · generation {generation}
              </>
            ) : requestKind === 'installation' ? (
              <>
                Landscaper installation and its scope · generation {generation}
              </>
            ) : requestKind === 'deployment' ? (
              <>
                Deployment Manager deployment and its layout · generation {generation}
              </>
            ) : (
              <>
                User <strong>{outcome.user}</strong> claims service <strong>{outcome.service}</strong> · generation {generation}
              </>
            )}
          </p>
        </div>
        <div className="actions">
          <Link className="btn" href={`/graphs?view=policy&generation=${generation}&node=${encodeURIComponent(`claim:${outcome.namespace}/${outcome.name}`)}`}>
            Show in graph
          </Link>
          {requestKind === 'installation' && (
            <Link className="btn" href={`/installations?namespace=${encodeURIComponent(outcome.namespace)}&node=${encodeURIComponent(`${outcome.namespace}/${outcome.name}`)}`}>
              Show in scope graph
            </Link>
          )}
          <Link className="btn" href={objectHref({ kind: requestKind ?? 'claim', namespace: outcome.namespace, name: outcome.name })}>
            Edit {requestKind ?? 'claim'}
          </Link>
        </div>
      </div>
      <Failures outcome={outcome} testId="claim-error" />
      {requestKind === 'deployment' && <DeploymentLayout namespace={outcome.namespace} name={outcome.name} />}
      <section className="panel" aria-label="Decision trace">
        <h2>Decision trace</h2>
        <DecisionTrace steps={outcome.trace} />
      </section>
      <section className="panel" aria-label="Instances">
        <h2>Instances ({instances.length})</h2>
        {instances.length === 0 ? (
          <p className="muted">This claim uses no instances{outcome.status === 'resolved' ? '' : ': a claim that fails contributes nothing'}.</p>
        ) : (
          <div className="table-wrap">
            <table className="table" data-testid="claim-instances">
              <thead>
                <tr>
                  <th>Instance</th>
                  <th>Component</th>
                  <th>Target</th>
                  <th>Code</th>
                  <th className="num">Claims</th>
                </tr>
              </thead>
              <tbody>
                {instances.map((i) => (
                  <tr key={i.key}>
                    <td>
                      <code title={i.key}>{i.deployName}</code>
                      <div className="muted mono">{i.key}</div>
                      {i.error && <div className="sev-error">{i.error}</div>}
                    </td>
                    <td>
                      {i.namespace}/{i.owner} · {i.component}
                    </td>
                    <td>
                      {i.target.cluster}/{i.target.namespace}
                    </td>
                    <td>{i.code ? i.code.type : '—'}</td>
                    <td className="num">{i.claims.length}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
