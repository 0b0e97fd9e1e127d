/**
 * The console's links: Next's Link without prefetching. Every console page
 * is rendered per request (it depends on who is signed in and on the newest
 * policy), so a prefetch is a full server render. With prefetching on, each
 * page that opened rendered every page its visible links led to — the nine
 * menu entries, every row of a table — on the server, queued in front of the
 * page being opened and the next one. A click still navigates in place.
 */
import NextLink from 'next/link';
import type { ComponentProps } from 'react';

export default function Link(props: ComponentProps<typeof NextLink>) {
  return <NextLink prefetch={false} {...props} />;
}
