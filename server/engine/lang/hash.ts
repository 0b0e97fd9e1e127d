/**
 * Aptomi-compatible instance naming: FNV-1a hashes of the component-instance
 * key (`clusterNs#cluster#k8sNs#serviceNs#service#context[#keys]#component`).
 *
 * - `instanceId(key)`  = decimal FNV-1a 32-bit of the key's UTF-8 bytes;
 * - `deployName(key)`  = "a-" + the first 13 characters of base32 (Go's
 *   `base32.HexEncoding`, lower-cased: digits then a..v) of the 8 big-endian
 *   bytes of FNV-1a 64-bit. 64 bits are exactly 13 base32 digits, so no
 *   padding is involved.
 *
 * Both must stay bit-for-bit identical to Aptomi (deploy names are the names
 * of real Kubernetes objects), and they run for every instance of every
 * resolution, so the 64-bit hash works on two 32-bit halves instead of BigInt.
 */

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;
// FNV-64 offset basis 0xcbf29ce484222325, split into 32-bit halves.
const FNV64_OFFSET_HI = 0xcbf29ce4;
const FNV64_OFFSET_LO = 0x84222325;
// FNV-64 prime is 2^40 + 0x1b3.
const FNV64_PRIME_LO = 0x1b3;

const BASE32_HEX = '0123456789abcdefghijklmnopqrstuv';
const TWO_32 = 4294967296;

const encoder = new TextEncoder();

/** UTF-8 bytes of `s`; ASCII strings (all instance keys in practice) skip the encoder. */
function utf8(s: string): Uint8Array | string {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) return encoder.encode(s);
  }
  return s; // every code unit is already its own byte
}

function byteAt(bytes: Uint8Array | string, i: number): number {
  return typeof bytes === 'string' ? bytes.charCodeAt(i) : (bytes[i] as number);
}

/** FNV-1a 32-bit of the UTF-8 bytes of `s`, as an unsigned integer. */
export function fnv1a32(s: string): number {
  const bytes = utf8(s);
  let h = FNV32_OFFSET;
  for (let i = 0; i < bytes.length; i++) {
    h ^= byteAt(bytes, i);
    h = Math.imul(h, FNV32_PRIME);
  }
  return h >>> 0;
}

/** FNV-1a 64-bit of the UTF-8 bytes of `s`, as `[high32, low32]` unsigned halves. */
export function fnv1a64Parts(s: string): [number, number] {
  const bytes = utf8(s);
  let hi = FNV64_OFFSET_HI;
  let lo = FNV64_OFFSET_LO;
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ byteAt(bytes, i)) >>> 0;
    // (hi·2^32 + lo) × (2^40 + 0x1b3) mod 2^64:
    //   low word  = (lo × 0x1b3) mod 2^32
    //   high word = hi × 0x1b3 + carry(lo × 0x1b3) + lo × 2^8   (mod 2^32)
    // Every intermediate stays below 2^53, so plain doubles are exact.
    const t = lo * FNV64_PRIME_LO;
    const carry = Math.floor(t / TWO_32);
    hi = (hi * FNV64_PRIME_LO + carry + ((lo << 8) >>> 0)) >>> 0;
    lo = t >>> 0;
  }
  return [hi, lo];
}

/** FNV-1a 64-bit as a BigInt (for display and tests; the hot path uses parts). */
export function fnv1a64(s: string): bigint {
  const [hi, lo] = fnv1a64Parts(s);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** Aptomi's `InstanceId`: the decimal FNV-1a 32-bit hash of the key. */
export function instanceId(key: string): string {
  return String(fnv1a32(key));
}

/** Aptomi's deploy name: "a-" + 13 base32hex digits of FNV-1a 64 (big-endian). */
export function deployName(key: string): string {
  const [hi, lo] = fnv1a64Parts(key);
  // Read the 64 bits five at a time from the top; the 13th digit holds the
  // last 4 bits followed by one zero bit, exactly as base32 pads a final group.
  let out = 'a-';
  for (let digit = 0; digit < 13; digit++) {
    const shift = 59 - 5 * digit; // bit index of the group's lowest bit
    let v: number;
    if (shift >= 32) v = (hi >>> (shift - 32)) & 31;
    else if (shift > 27) v = ((hi << (32 - shift)) | (lo >>> shift)) & 31; // group straddles the halves
    else if (shift >= 0) v = (lo >>> shift) & 31;
    else v = (lo << -shift) & 31; // final group: 4 bits + 1 padding zero
    out += BASE32_HEX[v];
  }
  return out;
}
