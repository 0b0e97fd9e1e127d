/**
 * A node:test reporter beside the spec reporter (scripts/test.mjs): one JSON line per finished
 * top-level test, `{"file", "ms"}`, so the run can end with its slowest files. node:test has no
 * per-file event; a file's time is the sum of its top-level tests (its imports are not counted).
 */
export default async function* fileDurations(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || !file) continue;
    yield `${JSON.stringify({ file, ms: details?.duration_ms ?? 0 })}\n`;
  }
}
