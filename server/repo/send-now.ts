/**
 * Sends a statement now. drizzle's builders run when first awaited, and
 * `Promise.all` awaits thenables a microtask later, in an order of its own
 * making once arrays nest: statements that must run in a given order inside
 * a transaction are started here, one after another, and awaited together.
 * One connection runs them in the order they were sent.
 */
export function sendNow<T>(statement: PromiseLike<T>): Promise<T> {
  return Promise.resolve(statement.then((v) => v));
}
