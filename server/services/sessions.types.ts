/** Requests and responses of the session service, shared by tRPC and the CLI. */
import { z } from 'zod';

/** Ending a user's console sessions: the user as policy names them. */
export const endSessionsInput = z.object({ user: z.string().min(1).max(200) });
export const endSessionsOutput = z.object({ user: z.string(), ended: z.number().int().min(0) });
