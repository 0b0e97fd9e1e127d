/** Shared formatting for revision screens. */
import { instanceKey } from '@/server/engine/state/key';
import type { Carries } from '@/server/services/revisions.types';
export { ACTION_KINDS, countsText } from '@/server/engine/plan/counts';

export function money(value: number, currency: string): string {
  const sign = value > 0 ? '+' : value < 0 ? '−' : '';
  const abs = Math.abs(value);
  try {
    return `${sign}${new Intl.NumberFormat('en', { style: 'currency', currency: currency && currency.length === 3 ? currency : 'EUR', maximumFractionDigits: 2 }).format(abs)}`;
  } catch {
    return `${sign}${abs.toFixed(2)} ${currency}`;
  }
}

export function plainMoney(value: number, currency: string): string {
  return money(value, currency).replace(/^\+/, '');
}

export function vcpu(millis: number): string {
  return `${(millis / 1000).toFixed(millis % 1000 === 0 ? 0 : 2)}`;
}

export function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(2)}`;
}

/** A quota figure in units people read: bytes as GiB or MiB, CPU as cores. */
export function quantity(value: number, unit: 'vCPU' | 'bytes' | 'instances'): string {
  if (unit === 'bytes') {
    if (Math.abs(value) >= 2 ** 30) return `${trim(value / 2 ** 30)} GiB`;
    if (Math.abs(value) >= 2 ** 20 || value === 0) return `${trim(value / 2 ** 20)} MiB`;
    return `${trim(value / 2 ** 10)} KiB`;
  }
  if (unit === 'vCPU') return `${trim(value)} ${value === 1 ? 'core' : 'cores'}`;
  return `${value} ${value === 1 ? 'instance' : 'instances'}`;
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/\.?0+$/, '');
}


const STATUS_CLASS: Record<string, string> = {
  pending: 'badge-warn',
  accepted: 'badge-kind',
  applying: 'badge-kind',
  applied: 'badge-ok',
  failed: 'badge-error',
  rejected: 'badge-error',
  superseded: '',
  'no-op': '',
};

export function statusClass(status: string): string {
  return `badge ${STATUS_CLASS[status] ?? ''}`;
}

/** An instance's name on screen: the same in the plan, the apply events and the graph. */
export const shortKey = instanceKey.displayName;

/**
 * Whose changes a revision carries, in words: "sam (generation 5), carol
 * (generation 6)", each author once with their generations, oldest first.
 * Its own author made only the last generation; the others rode along.
 */
export function carriedText(c: Carries): string {
  const by = new Map<string, number[]>();
  for (const ch of [...c.changes].reverse()) by.set(ch.author, [...(by.get(ch.author) ?? []), ch.generation]);
  const parts = [...by].map(([author, gens]) => `${author} (generation${gens.length > 1 ? 's' : ''} ${gens.join(', ')})`);
  return parts.join(', ') + (c.more > 0 ? `, and ${c.more} older generation${c.more === 1 ? '' : 's'}` : '');
}

/** Whether a revision carries more than its own author's one change (then the list says whose). */
export function carriesOthers(c: Carries, author: string): boolean {
  return c.more > 0 || c.changes.length > 1 || c.changes.some((ch) => ch.author !== author);
}
