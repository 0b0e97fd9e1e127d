'use client';
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, splitLink, type Operation } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { useState, type ReactNode } from 'react';
import superjson from 'superjson';
import { MAX_BATCH } from '@/server/http/batch';
import type { AppRouter } from '@/server/api/root';
import { makeQueryClient } from './query-client';

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

let browserQueryClient: QueryClient | undefined;
function getQueryClient() {
  if (typeof window === 'undefined') return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

/**
 * Queries go as GET (cacheable, visible in logs) unless their input is big —
 * a preview carries a whole object, up to 1 MiB — then as POST with the
 * input in the body (a URL is limited to a few thousand characters).
 */
const LARGE_INPUT_CHARS = 1500;
/** Marks the console's own calls: expected refusals come back as 200 with the error in the body (see the route). */
const CONSOLE_HEADERS = { 'x-keelson-console': '1' };
function inBody(op: Operation): boolean {
  if (op.type !== 'query') return false;
  if (op.path === 'revisions.preview') return true;
  try {
    return JSON.stringify(op.input ?? null).length > LARGE_INPUT_CHARS;
  } catch {
    return true;
  }
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: inBody,
          true: httpBatchLink({ url: '/api/trpc', transformer: superjson, methodOverride: 'POST', maxItems: MAX_BATCH, headers: CONSOLE_HEADERS }),
          false: httpBatchLink({ url: '/api/trpc', transformer: superjson, maxURLLength: 4000, maxItems: MAX_BATCH, headers: CONSOLE_HEADERS }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
