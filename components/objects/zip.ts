/**
 * A zip picked for import, read in the browser into path → text entries.
 *
 * The central directory says how big each file unpacks; fflate's unzipSync
 * unpacks a file into a buffer of exactly that size, so the sum of the
 * declared sizes bounds the memory the zip can take whatever its contents
 * claim (a zip bomb is refused before anything is unpacked). Only text is
 * taken: a file that is not UTF-8 is listed as skipped, by name.
 */
import { unzipSync } from 'fflate';

/** What an import may hold: the server takes no larger request, and no more objects than this are worth a review. */
export const IMPORT_LIMITS = { bytes: 10 * 1024 * 1024, files: 2000 } as const;

export interface ImportEntry {
  /** `/`-separated, relative: `application/blueprint.yaml`. */
  path: string;
  text: string;
}

export interface ZipRead {
  entries: ImportEntry[];
  /** Files not taken, by path, with why. */
  skipped: string[];
  /** Why the zip was not read at all; with a problem, `entries` is empty. */
  problem?: string;
}

/** A zip's path as a safe relative path, or null when it climbs out (`../`) or is a folder entry. */
export function entryPath(name: string): string | null {
  const parts = name.replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || name.endsWith('/') || parts.includes('..')) return null;
  return parts.join('/');
}

/** Folders a zip tool adds that are not the user's files: macOS resource forks, hidden files. */
export function isNoise(path: string): boolean {
  return path.split('/').some((p) => p === '__MACOSX' || p.startsWith('.'));
}

function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

export function readZip(zipName: string, bytes: Uint8Array, limits: { bytes: number; files: number } = IMPORT_LIMITS): ZipRead {
  const skipped: string[] = [];
  let declared = 0;
  let files = 0;
  let over: string | undefined;
  let unpacked: Record<string, Uint8Array>;
  try {
    unpacked = unzipSync(bytes, {
      filter: (f) => {
        if (over) return false;
        const path = entryPath(f.name);
        if (path === null) {
          if (!f.name.endsWith('/')) skipped.push(`${f.name} (a path outside the zip)`);
          return false;
        }
        if (isNoise(path)) return false;
        files++;
        declared += f.originalSize;
        if (files > limits.files) over = `it holds more than ${limits.files} files`;
        else if (declared > limits.bytes) over = `it unpacks to more than ${sizeText(limits.bytes)}`;
        return !over;
      },
    });
  } catch (e) {
    return { entries: [], skipped: [], problem: `${zipName} could not be read as a zip: ${(e as Error).message}` };
  }
  if (over) return { entries: [], skipped: [], problem: `${zipName} was not imported: ${over}` };
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const entries: ImportEntry[] = [];
  for (const [name, data] of Object.entries(unpacked)) {
    const path = entryPath(name)!;
    try {
      entries.push({ path, text: decoder.decode(data) });
    } catch {
      skipped.push(`${path} (not text)`);
    }
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries, skipped };
}
