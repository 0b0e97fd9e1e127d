/** Shared formatting for revision screens. */
import { instanceKey } from '@/server/engine/state/key';
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

/** The readable middle of an instance key: namespace#service#context…#component. */
export function shortKey(key: string): string {
  return instanceKey.readable(key);
}
