/** Calls one tRPC request may batch: the server refuses more, the browser client splits at this size. */
export const MAX_BATCH = 20;
