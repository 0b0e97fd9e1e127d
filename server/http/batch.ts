/** Calls one tRPC request may batch: the server refuses more, the browser client splits at this size. */
export const MAX_BATCH = 20;

/**
 * Options every tRPC fetch handler of the console passes: tRPC itself
 * refuses a batch of more than MAX_BATCH procedures, counted after it
 * decodes the path (`a%2Cb` is two calls), whatever guard ran before it.
 */
export const TRPC_HANDLER_LIMITS = { maxBatchSize: MAX_BATCH } as const;
