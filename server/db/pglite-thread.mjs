// The embedded database on a thread of its own (started by pglite-thread.ts).
// Plain JavaScript on purpose: it needs only PGlite, and starts the same
// under tsx, the CLI and Next.js's compiled server.
//
// It runs exactly the calls the request thread would have made on PGlite —
// query, exec, transaction — in the order they arrive, so PGlite's own
// locks order them as before; only the work (PostgreSQL in WebAssembly,
// encoding parameters, decoding rows) moves off the request thread.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

if (!parentPort) throw new Error('pglite-thread.mjs runs as a worker thread');
const port = parentPort;

/** Errors travel as their fields: a structured clone keeps an Error's message, not PostgreSQL's code, detail or constraint. */
const ERROR_FIELDS = ['name', 'message', 'code', 'detail', 'hint', 'position', 'schema', 'table', 'column', 'dataType', 'constraint', 'severity', 'routine', 'where'];
function errorFields(e) {
  const out = {};
  for (const k of ERROR_FIELDS) if (e && e[k] !== undefined) out[k] = typeof e[k] === 'string' || typeof e[k] === 'number' ? e[k] : String(e[k]);
  if (!out.message) out.message = String(e);
  return out;
}

/** The caller's parsers were identities for these types (drizzle keeps dates and intervals as text): kept as text here too. */
function options(m) {
  if (!m.rowMode && !m.textTypes) return undefined;
  const parsers = {};
  for (const t of m.textTypes ?? []) parsers[t] = (v) => v;
  return { ...(m.rowMode ? { rowMode: m.rowMode } : {}), ...(m.textTypes ? { parsers } : {}) };
}

const result = (r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows });

let pg;
try {
  pg = await PGlite.create(workerData.dir);
} catch (e) {
  port.postMessage({ ready: false, error: errorFields(e) });
  throw e;
}

/**
 * Open transactions by the caller's id: PGlite's transaction callback waits
 * on `end` until the caller commits or rolls back; `done` is how it ended.
 */
const transactions = new Map();

function reply(id, p) {
  p.then(
    (value) => port.postMessage({ id, ok: true, value }),
    (e) => port.postMessage({ id, ok: false, error: errorFields(e) }),
  );
}

/**
 * Where a statement runs: the database, or its transaction once PGlite has
 * opened it. The caller does not wait for `begin` to be answered before
 * sending the transaction's statements (that wait was a turn of the busy
 * request thread with the one connection held), so they may arrive first;
 * they wait here for the opening, in the order they came.
 */
async function target(m) {
  if (m.tx === undefined || m.tx === null) return pg;
  const t = transactions.get(m.tx);
  if (!t) throw new Error(`transaction ${m.tx} is not open`);
  return (await t.opened).tx;
}

port.on('message', (m) => {
  switch (m.op) {
    case 'query':
      return reply(m.id, target(m).then((db) => db.query(m.sql, m.params, options(m))).then(result));
    case 'exec':
      return reply(m.id, target(m).then((db) => db.exec(m.sql)).then((rs) => rs.map(result)));
    case 'begin': {
      const entry = {};
      let opened;
      const opening = new Promise((ok) => (opened = ok));
      entry.done = pg.transaction((tx) => new Promise((commit, rollback) => opened({ tx, commit, rollback })));
      // Settles when PGlite runs the callback (BEGIN done, the connection held), or fails with the transaction.
      entry.opened = Promise.race([opening, entry.done.then(() => Promise.reject(new Error(`transaction ${m.tx} ended before it opened`)))]);
      // A transaction that fails is reported on its statements and its end; never as an unhandled rejection.
      entry.opened.catch(() => undefined);
      entry.done.catch(() => undefined);
      transactions.set(m.tx, entry);
      return reply(m.id, entry.opened.then(() => undefined));
    }
    case 'end': {
      const t = transactions.get(m.tx);
      transactions.delete(m.tx);
      if (!t) return reply(m.id, Promise.reject(new Error(`transaction ${m.tx} is not open`)));
      return reply(
        m.id,
        t.opened.then(({ commit, rollback }) => {
          if (m.commit) commit();
          else rollback(Object.assign(new Error('rolled back by the caller'), { name: 'RollbackRequested' }));
          return t.done.then(
            () => undefined,
            (e) => {
              // The rollback asked for is the expected end, not an error.
              if (!m.commit && e?.name === 'RollbackRequested') return undefined;
              throw e;
            },
          );
        }),
      );
    }
    case 'close':
      return reply(m.id, pg.close());
  }
});
port.postMessage({ ready: true });
