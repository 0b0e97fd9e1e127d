/** The slowest test files of a run, from the `{"file", "ms"}` lines the two timing reporters write. */
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** Per-file totals, slowest first: [{ file, ms, tests }] (file relative to root). */
export function slowestFiles(lines, root, count = 10) {
  const byFile = new Map();
  for (const line of lines.split('\n')) {
    if (!line.trim()) continue;
    let row;
    try {
      row = JSON.parse(line);
    } catch {
      continue; // a line cut short by a killed run: the others still count
    }
    const file = relative(root, row.file);
    const entry = byFile.get(file) ?? { file, ms: 0, tests: 0 };
    entry.ms += Number(row.ms) || 0;
    entry.tests += 1;
    byFile.set(file, entry);
  }
  return [...byFile.values()].sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file)).slice(0, count);
}

/** The table printed at the end of a run, or '' when the reporter wrote nothing. */
export function slowestFilesReport(path, root, title, count = 10) {
  if (!existsSync(path)) return '';
  const rows = slowestFiles(readFileSync(path, 'utf8'), root, count);
  if (!rows.length) return '';
  const width = Math.max(...rows.map((r) => r.file.length));
  return [
    `${title}: the ${rows.length} slowest files (seconds, summed over their tests)`,
    ...rows.map((r) => `  ${(r.ms / 1000).toFixed(1).padStart(7)}  ${r.file.padEnd(width)}  ${r.tests} test${r.tests === 1 ? '' : 's'}`),
  ].join('\n');
}
