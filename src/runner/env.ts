import { sha256Hex } from '../core/sha256.js';
import { existsSync } from 'node:fs';
import { isInstant, parseInstant } from '../core/time.js';

/**
 * The environment of a sealed test run: the sealed seed, clock and locale pinned, nothing
 * from the caller but PATH and CI. Pure except `findLibfaketime`.
 */

export interface SealedInputs {
  readonly seed: string;
  readonly clock: string;
  readonly locale: string;
  readonly digest: string;
}

/** How the clock mode is carried out. */
export type ClockPlan =
  | { readonly kind: 'live' }
  /** `frozen`: the suite takes its time from the sealed fixtures; the process clock is not touched. */
  | { readonly kind: 'fixture' }
  /** `frozen:<instant>`: libfaketime holds the wall clock at `faketime` (UTC, "YYYY-MM-DD hh:mm:ss"). */
  | { readonly kind: 'faketime'; readonly faketime: string; readonly library: string };

/** Where Debian's `faketime` package (and common local builds) put the preload library. */
export const LIBFAKETIME_PATHS: readonly string[] = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/i386-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/arm-linux-gnueabihf/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
  '/usr/lib64/faketime/libfaketime.so.1',
  '/usr/local/lib/faketime/libfaketime.so.1',
];

export function findLibfaketime(candidates: readonly string[] = LIBFAKETIME_PATHS): string | null {
  return candidates.find((p) => existsSync(p)) ?? null;
}

/** The clock plan for a sealed mode, or why it cannot be carried out here. */
export function planClock(mode: string, library: string | null): ClockPlan | { readonly problem: string } {
  if (mode === 'live') return { kind: 'live' };
  if (mode === 'frozen') return { kind: 'fixture' };
  if (!mode.startsWith('frozen:'))
    return { problem: `clock mode "${mode}" is not "frozen", "frozen:<RFC 3339 instant>" or "live"` };
  const text = mode.slice('frozen:'.length);
  const t = parseInstant(text);
  if (!isInstant(t)) return { problem: `clock mode: ${t.problem}` };
  if (t.ns % 1_000_000_000n !== 0n)
    return { problem: `clock mode "${mode}": libfaketime freezes whole seconds; seal an instant without a fraction` };
  const ms = Number(t.ns / 1_000_000n);
  if (ms < 0 || ms > Date.UTC(9999, 11, 31))
    return { problem: `clock mode "${mode}": the instant is outside years 1970-9999` };
  if (library === null) {
    return {
      problem: `clock mode "${mode}" freezes the test process's clock with libfaketime, which is not installed here (Debian package "faketime"); install it, or seal with clock "live" or "frozen". The run is refused rather than run on a live clock`,
    };
  }
  const iso = new Date(ms).toISOString(); // UTC
  return { kind: 'faketime', faketime: `${iso.slice(0, 10)} ${iso.slice(11, 19)}`, library };
}

/** PYTHONHASHSEED from the seed: the first 32 bits of SHA-256("sealgate-pythonhashseed:" + seed), in decimal. */
export function pythonHashSeed(seed: string): string {
  return String(Number.parseInt(sha256Hex(`sealgate-pythonhashseed:${seed}`).slice(0, 8), 16));
}

/** The only names taken from the caller's environment; everything else it holds (tokens, agents, NODE_OPTIONS ...) stays out. */
export const INHERITED_ENV: readonly string[] = ['PATH', 'CI'];

/** PATH when the caller has none. */
export const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The child's environment, from an allowlist: PATH and CI from the caller, the policy's
 * `test.env`, then the sealed values (which nothing overrides). HOME and TMPDIR are the
 * run's own, set by the sandbox plan (src/sandbox/plan.ts).
 */
export function pinnedEnv(
  base: Readonly<Record<string, string | undefined>>,
  inputs: SealedInputs,
  plan: ClockPlan,
  testEnv: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = { PATH: base.PATH !== undefined && base.PATH !== '' ? base.PATH : DEFAULT_PATH };
  if (base.CI !== undefined) env.CI = base.CI;
  Object.assign(env, testEnv, {
    SEED: inputs.seed,
    PYTHONHASHSEED: pythonHashSeed(inputs.seed),
    TZ: 'UTC',
    LC_ALL: inputs.locale,
    LANG: inputs.locale,
    SEALGATE_DIGEST: inputs.digest,
    SEALGATE_CLOCK: inputs.clock,
  });
  if (plan.kind === 'faketime') {
    Object.assign(env, {
      LD_PRELOAD: plan.library,
      FAKETIME: plan.faketime,
      // A frozen monotonic clock would stall every timer and event loop; only the wall clock is held.
      DONT_FAKE_MONOTONIC: '1',
      FAKETIME_NO_CACHE: '1',
    });
  }
  return env;
}
