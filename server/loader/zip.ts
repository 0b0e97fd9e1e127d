/**
 * Reading a zip archive (Axebow bundles) from bytes, defensively: the
 * archive comes from an API client. Only what a bundle needs: stored and
 * deflated entries, no encryption, no ZIP64, no multi-disk archives. Every
 * limit is checked before the work it bounds — entry count, each entry's
 * and the total declared size, and the inflated size (a zip bomb declares
 * small sizes and inflates large, so inflation itself is capped) — and
 * names that could escape a folder are refused.
 *
 * Why not a library: the format subset is small, and the limits are the
 * point; Node's zlib does the inflating.
 */
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** The path inside the archive, `/`-separated, never absolute, never with `..`. */
  path: string;
  bytes: Uint8Array;
}

export interface ZipLimits {
  maxEntries: number;
  /** Largest single entry, inflated. */
  maxEntryBytes: number;
  /** All entries together, inflated. */
  maxTotalBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxEntries: 500, maxEntryBytes: 1024 * 1024, maxTotalBytes: 4 * 1024 * 1024 };

export class ZipError extends Error {
  constructor(
    message: string,
    readonly entry?: string,
  ) {
    super(message);
    this.name = 'ZipError';
  }
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

let crcTable: Uint32Array | undefined;
/** CRC-32 (IEEE), as zip stores it: a corrupt or tampered entry is refused rather than read. */
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = crcTable[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function safePath(name: string): string | undefined {
  if (name === '' || name.includes('\0') || name.includes('\\') || name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return undefined;
  const parts = name.split('/');
  if (parts.some((p) => p === '..' || p === '.')) return undefined;
  return name;
}

/** The files of a zip archive (folders are skipped), in archive order. */
export function readZip(data: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipEntry[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // The end record sits in the last 22 bytes plus a comment of up to 64 KiB.
  let end = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new ZipError('This is not a zip archive (no end-of-archive record).');
  if (buf.readUInt16LE(end + 4) !== 0 || buf.readUInt16LE(end + 6) !== 0) throw new ZipError('Multi-part zip archives are not supported.');
  const count = buf.readUInt16LE(end + 10);
  const dirSize = buf.readUInt32LE(end + 12);
  const dirOffset = buf.readUInt32LE(end + 16);
  if (count === 0xffff || dirOffset === 0xffffffff) throw new ZipError('ZIP64 archives are not supported.');
  if (count > limits.maxEntries) throw new ZipError(`The archive holds ${count} entries; at most ${limits.maxEntries} are accepted.`);
  if (dirOffset + dirSize > end) throw new ZipError('The archive is damaged (its directory lies outside it).');

  const out: ZipEntry[] = [];
  let total = 0;
  let at = dirOffset;
  for (let n = 0; n < count; n++) {
    if (at + 46 > end || buf.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw new ZipError('The archive is damaged (a directory entry is missing).');
    const flags = buf.readUInt16LE(at + 8);
    const method = buf.readUInt16LE(at + 10);
    const crc = buf.readUInt32LE(at + 16);
    const compressed = buf.readUInt32LE(at + 20);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const rawName = buf.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    at += 46 + nameLength + extraLength + commentLength;
    if (rawName.endsWith('/')) continue;
    const path = safePath(rawName);
    if (!path) throw new ZipError(`Entry "${rawName}" has a path that could leave the bundle.`, rawName);
    if (flags & 0x1) throw new ZipError(`Entry ${path} is encrypted.`, path);
    if (size > limits.maxEntryBytes) throw new ZipError(`Entry ${path} is ${size} bytes; at most ${limits.maxEntryBytes} are accepted per file.`, path);
    total += size;
    if (total > limits.maxTotalBytes) throw new ZipError(`The archive unpacks to over ${limits.maxTotalBytes} bytes.`, path);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== LOCAL_FILE_HEADER) throw new ZipError(`Entry ${path} is damaged (no local header).`, path);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    if (start + compressed > buf.length) throw new ZipError(`Entry ${path} is cut short.`, path);
    const stored = buf.subarray(start, start + compressed);
    let bytes: Uint8Array;
    if (method === 0) bytes = stored;
    else if (method === 8) {
      try {
        // The cap stops a bomb at the declared size plus one byte, whatever the stream says.
        bytes = inflateRawSync(stored, { maxOutputLength: Math.max(1, size) });
      } catch (e) {
        throw new ZipError(`Entry ${path} does not inflate to its declared ${size} bytes (${(e as Error).message}).`, path);
      }
    } else throw new ZipError(`Entry ${path} uses compression method ${method}; only stored and deflated entries are read.`, path);
    if (bytes.length !== size) throw new ZipError(`Entry ${path} is ${bytes.length} bytes, not the ${size} it declares.`, path);
    if (crc32(bytes) !== crc) throw new ZipError(`Entry ${path} is corrupt (checksum mismatch).`, path);
    out.push({ path, bytes });
  }
  return out;
}

/** A zip archive of the given files (deflated): for tests and the CLI's `--bundle` folders. */
export function writeZip(files: { path: string; bytes: Uint8Array }[], deflate: (b: Uint8Array) => Uint8Array): Uint8Array {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const name = Buffer.from(f.path, 'utf8');
    const packed = Buffer.from(deflate(f.bytes));
    const crc = crc32(f.bytes);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_FILE_HEADER, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(f.bytes.length, 22);
    local.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(CENTRAL_FILE_HEADER, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(packed.length, 20);
    dir.writeUInt32LE(f.bytes.length, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    central.push(dir, name);
    offset += 30 + name.length + packed.length;
  }
  const dirBytes = Buffer.concat(central);
  const endRecord = Buffer.alloc(22);
  endRecord.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  endRecord.writeUInt16LE(files.length, 8);
  endRecord.writeUInt16LE(files.length, 10);
  endRecord.writeUInt32LE(dirBytes.length, 12);
  endRecord.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBytes, endRecord]);
}
