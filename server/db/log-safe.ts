/**
 * An error as a log line may hold it. Drizzle's query errors carry the
 * statement's parameters in their message: a resolution's whole state, a
 * revision's plan, values rendered from user secrets. Those never go to the
 * log: what failed is the statement's first line and the driver's reason.
 */
export function loggable(e: unknown): string {
  if (!(e instanceof Error)) return String(e).slice(0, 500);
  const first = e.message.split('\n')[0]!.slice(0, 300);
  const cause = e.cause instanceof Error ? `: ${e.cause.message.split('\n')[0]!.slice(0, 300)}` : '';
  // The stack's frames only: its first lines repeat the message.
  const stack = (e.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 3).join('\n');
  return `${e.name}: ${first}${cause}${stack ? `\n${stack}` : ''}`;
}
