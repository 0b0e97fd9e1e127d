/**
 * Runs once when the server starts (Node.js runtime only): see server/boot.ts.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { boot } = await import('./server/boot');
  await boot();
}
