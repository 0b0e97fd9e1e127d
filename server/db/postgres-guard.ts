/**
 * A guard for one postgres.js (3.4.9) defect that would stop the server.
 *
 * When the database goes away while a transaction has a statement in flight,
 * postgres.js rejects the statement and then writes the transaction's
 * ROLLBACK to the same connection, whose socket is already gone. The write
 * is deferred (setImmediate) and throws there, outside any caller: an
 * uncaught TypeError, which ends the process. The outage test met it about
 * one run in three. The database rolls the transaction back by itself when
 * the connection drops, so that one error is logged and dropped (the
 * connection recovers on its next connect); every other uncaught exception
 * or unhandled rejection still ends the process, as Node would.
 */

let installed = false;
let reported = false;

/** Is this the deferred write of postgres.js to a closed connection? */
export function isClosedSocketWrite(e: unknown): boolean {
  return (
    e instanceof TypeError &&
    e.message === "Cannot read properties of null (reading 'write')" &&
    typeof e.stack === 'string' &&
    /\bnextWrite\b.*[/\\]postgres[/\\]src[/\\]connection\.js/.test(e.stack)
  );
}

export function guardPostgresClosedSocketWrite(): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (e, origin) => {
    if (isClosedSocketWrite(e)) {
      if (!reported) {
        reported = true;
        console.error('keelson: postgres.js wrote a rollback to a connection that had closed (the database went away mid-transaction); ignored: the database rolled it back');
      }
      return;
    }
    // What Node does without a listener: report, and end the process.
    console.error(origin === 'unhandledRejection' ? 'Unhandled rejection:' : 'Uncaught exception:', e);
    process.exit(1);
  });
}
