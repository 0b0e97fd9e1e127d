import { capactRouter } from './routers/capact';
import { landscaperRouter } from './routers/landscaper';
import { dmRouter } from './routers/dm';
import { graphsRouter } from './routers/graphs';
import { policyRouter } from './routers/policy';
import { resolutionRouter } from './routers/resolution';
import { revisionsRouter } from './routers/revisions';
import { tenantsRouter } from './routers/tenants';
import { tokensRouter } from './routers/tokens';
import { usersRouter } from './routers/users';
import { createCallerFactory, createTRPCRouter } from './trpc';

export const appRouter = createTRPCRouter({
  capact: capactRouter,
  landscaper: landscaperRouter,
  dm: dmRouter,
  graphs: graphsRouter,
  policy: policyRouter,
  resolution: resolutionRouter,
  revisions: revisionsRouter,
  tenants: tenantsRouter,
  tokens: tokensRouter,
  users: usersRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
