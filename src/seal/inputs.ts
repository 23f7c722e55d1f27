import { sha256Hex } from '../core/sha256.js';
import { isInstant, parseInstant } from '../core/time.js';

/**
 * review/runner/inputs.sha256, as the spec's shell recipe writes it: one `sha256sum` line
 * per fixture (`<64 hex>  <path>`, paths sorted bytewise), then `seed=`, `clock=` and
 * `locale=` lines, then `tree=` (the git tree id of base + patch the runner built) and
 * `policy=` (the SHA-256 of the policy file's bytes, or `default`). The digest is the
 * SHA-256 of exactly these bytes. Pure.
 */

export interface FixtureHash {
  /** POSIX path relative to the repository root. */
  readonly path: string;
  /** 64 lowercase hex digits. */
  readonly sha256: string;
}

export interface VerdictInputs {
  readonly seed: string;
  readonly clock: string;
  readonly locale: string;
}

/** What binds the seal to the runner's tree and the policy: the `tree=` and `policy=` lines. */
export interface BoundInputs {
  /** The git tree id of base + patch (40 or 64 lowercase hex). */
  readonly tree: string;
  /** SHA-256 of the policy bytes, or "default". */
  readonly policy: string;
}

export function checkBound(bound: BoundInputs): string | undefined {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(bound.tree)) return `tree id "${bound.tree}" is not a full git object id`;
  if (!/^(?:[0-9a-f]{64}|default)$/.test(bound.policy))
    return `policy digest "${bound.policy}" is not a SHA-256 or "default"`;
  return undefined;
}

/** Why a seed, clock or locale value cannot be sealed, or undefined when it can. */
export function checkSeed(seed: string): string | undefined {
  if (seed.length === 0) return 'the seed is empty';
  if (seed.length > 1024) return 'the seed is longer than 1024 characters';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(seed))
    return 'the seed contains a control character (a newline would forge an inputs line)';
  if (seed.includes('\ufffd')) return 'the seed contains U+FFFD (invalid UTF-8 in its source?)';
  return undefined;
}

/** Clock modes: `frozen`, `frozen:<RFC 3339 instant>` or `live`. */
export function checkClock(clock: string): string | undefined {
  if (clock === 'frozen' || clock === 'live') return undefined;
  if (clock.startsWith('frozen:')) {
    const t = parseInstant(clock.slice('frozen:'.length));
    return isInstant(t) ? undefined : `clock mode: ${t.problem}`;
  }
  return `clock mode "${clock}" is not "frozen", "frozen:<RFC 3339 instant>" or "live"`;
}

export const LOCALE_PATTERN = /^[A-Za-z0-9_.@+-]{1,64}$/;

export function checkLocale(locale: string): string | undefined {
  return LOCALE_PATTERN.test(locale)
    ? undefined
    : `locale "${locale}" is not a locale name such as C.UTF-8 or en_US.UTF-8`;
}

/** Why a repository-relative path cannot appear in a `sha256sum` line unescaped, or undefined. */
export function checkFixtureName(path: string): string | undefined {
  if (path.includes('\n'))
    return 'the file name contains a newline, which the sha256sum line format cannot carry unescaped';
  if (path.includes('\\'))
    return 'the file name contains a backslash, which the sha256sum line format cannot carry unescaped';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'the file name contains a control character';
  if (path.includes('\ufffd')) return 'the file name is not valid UTF-8';
  return undefined;
}

/** Bytewise (UTF-8) order, which is `LC_ALL=C sort` order. */
export function compareBytewise(a: string, b: string): number {
  // UTF-8 byte order is code point order; UTF-16 code unit order differs only around surrogates.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
  }
  return a.length - b.length;
}

export function toInputsText(files: readonly FixtureHash[], inputs: VerdictInputs, bound: BoundInputs): string {
  const sorted = [...files].sort((x, y) => compareBytewise(x.path, y.path));
  let out = '';
  for (const f of sorted) out += `${f.sha256}  ${f.path}\n`;
  return (
    out +
    `seed=${inputs.seed}\nclock=${inputs.clock}\nlocale=${inputs.locale}\ntree=${bound.tree}\npolicy=${bound.policy}\n`
  );
}

/** The digest: what `sha256sum inputs.sha256 | awk '{print $1}'` prints. */
export function digestOfInputs(text: string): string {
  return sha256Hex(text);
}

/** Which lines differ between the sealed inputs and the current ones: `- old` and `+ new`, in file order. */
export function diffInputs(sealed: string, current: string): string[] {
  const a = sealed.split('\n').filter((l) => l !== '');
  const b = current.split('\n').filter((l) => l !== '');
  const inB = new Set(b);
  const inA = new Set(a);
  const pathOf = (line: string): string =>
    /^[0-9a-f]{64} {2}/.test(line) ? line.slice(66) : (line.split('=')[0] ?? line);
  const removed = a.filter((l) => !inB.has(l)).map((l) => ({ key: pathOf(l), rank: 0, text: `- ${l}` }));
  const added = b.filter((l) => !inA.has(l)).map((l) => ({ key: pathOf(l), rank: 1, text: `+ ${l}` }));
  return [...removed, ...added].sort((x, y) => compareBytewise(x.key, y.key) || x.rank - y.rank).map((x) => x.text);
}
