import { crypto, cryptoIfLoaded } from './builtins.js';

/**
 * SHA-256 (FIPS 180-4) without loading node:crypto for small inputs.
 *
 * Loading node:crypto and making its first hash costs a process about 5 to 9 ms (the module
 * is not in Node's start-up snapshot, and a Hash is a stream), which is a tenth of a whole
 * `sealgate gate`; the gate hashes a few short strings (the policy bytes, the results file,
 * key ids). Inputs up to SMALL_INPUT bytes are hashed here; longer ones, where node:crypto's
 * native code wins even with its load cost, go to node:crypto, loaded on first use. The two
 * agree on every input (a property test checks it against node:crypto at every length around
 * the block and padding boundaries, and on random inputs). Not for secrets: the sealgate
 * inputs it hashes are public, and the code is not constant-time.
 */
export const SMALL_INPUT = 16 * 1024;

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/** One 64-byte block of `b` at `o` into the state `h`, with `w` as the message schedule. */
function block(h: Int32Array, w: Int32Array, b: Uint8Array, o: number): void {
  for (let i = 0; i < 16; i++) {
    const j = o + i * 4;
    w[i] = ((b[j] as number) << 24) | ((b[j + 1] as number) << 16) | ((b[j + 2] as number) << 8) | (b[j + 3] as number);
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15] as number;
    const y = w[i - 2] as number;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
  }
  let a = h[0] as number;
  let bb = h[1] as number;
  let c = h[2] as number;
  let d = h[3] as number;
  let e = h[4] as number;
  let f = h[5] as number;
  let g = h[6] as number;
  let hh = h[7] as number;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (hh + s1 + ch + (K[i] as number) + (w[i] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & bb) ^ (a & c) ^ (bb & c);
    const t2 = (s0 + maj) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = bb;
    bb = a;
    a = (t1 + t2) | 0;
  }
  h[0] = ((h[0] as number) + a) | 0;
  h[1] = ((h[1] as number) + bb) | 0;
  h[2] = ((h[2] as number) + c) | 0;
  h[3] = ((h[3] as number) + d) | 0;
  h[4] = ((h[4] as number) + e) | 0;
  h[5] = ((h[5] as number) + f) | 0;
  h[6] = ((h[6] as number) + g) | 0;
  h[7] = ((h[7] as number) + hh) | 0;
}

/** The JavaScript SHA-256 of any input (exported for the property test; use sha256Hex). */
export function sha256HexJs(data: Uint8Array): string {
  const h = new Int32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Int32Array(64);
  const len = data.length;
  const full = len - (len % 64);
  for (let o = 0; o < full; o += 64) block(h, w, data, o);
  // The rest, 0x80, zeros, and the length in bits as a 64-bit big-endian number.
  const rest = len - full;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(data.subarray(full));
  tail[rest] = 0x80;
  const bitsHigh = Math.floor(len / 0x20000000);
  const bitsLow = (len * 8) >>> 0;
  const n = tail.length;
  tail[n - 8] = bitsHigh >>> 24;
  tail[n - 7] = (bitsHigh >>> 16) & 0xff;
  tail[n - 6] = (bitsHigh >>> 8) & 0xff;
  tail[n - 5] = bitsHigh & 0xff;
  tail[n - 4] = bitsLow >>> 24;
  tail[n - 3] = (bitsLow >>> 16) & 0xff;
  tail[n - 2] = (bitsLow >>> 8) & 0xff;
  tail[n - 1] = bitsLow & 0xff;
  for (let o = 0; o < n; o += 64) block(h, w, tail, o);
  let out = '';
  for (let i = 0; i < 8; i++) out += ((h[i] as number) >>> 0).toString(16).padStart(8, '0');
  return out;
}

/** The SHA-256 of a string (as UTF-8) or bytes, as 64 lowercase hex digits. */
export function sha256Hex(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  // Once node:crypto is loaded anyway (a signed gate verifies with it), it hashes everything.
  const loaded = cryptoIfLoaded();
  if (bytes.length <= SMALL_INPUT && loaded === null) return sha256HexJs(bytes);
  return (loaded ?? crypto()).createHash('sha256').update(bytes).digest('hex');
}
