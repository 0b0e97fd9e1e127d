/**
 * `true` only when A and B are the same type. A drizzle repository asserts
 * `Same<typeof table.$inferSelect, Row>` so the rows it stores and the
 * records its contract names cannot drift apart unnoticed.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
