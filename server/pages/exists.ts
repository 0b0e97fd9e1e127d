/**
 * Server-side checks for console pages: a page about something that does not
 * exist answers HTTP 404 (inside the console frame, with a way back) instead
 * of a 200 page whose client then shows an error. Only "not found" decides
 * here; any other refusal is left to the page, which explains it.
 */
import { notFound } from 'next/navigation';
import { getServerSession } from 'next-auth';
import { actorFromSession, authOptions } from '../console-auth';
import { getRuntime } from '../runtime';
import type { Services } from '../services';
import type { Actor } from '../services/actor';
import { isAppError } from '../errors';

export async function notFoundUnless<T>(check: (services: Services, actor: Actor) => Promise<T>): Promise<T | undefined> {
  const actor = await actorFromSession(await getServerSession(authOptions()));
  if (!actor) return undefined; // the layout sends them to sign in
  const { services } = await getRuntime();
  let missing = false;
  try {
    return await check(services, actor);
  } catch (e) {
    missing = isAppError(e) && e.code === 'NOT_FOUND';
  }
  if (missing) notFound();
  return undefined;
}
