import { posix } from 'node:path';
import type { SandboxKind } from '../config/schema.js';
import { checkNiceness } from './exec.js';
import { SECCOMP_FD } from './seccomp.js';

/**
 * The sandbox plan: plain data saying what one run of the project's code may see, where it
 * runs, with which environment and limits. `planSandbox` is pure; `runSandboxed`
 * (./run.ts) carries the plan out with bubblewrap. Tests assert on plans without starting it.
 */

/** The run's tree, at one path for every run: the sealed run, the controls and every mutant. */
export const SANDBOX_WORK = '/sealgate/work';
/** The run's HOME: a fresh folder per run. */
export const SANDBOX_HOME = '/sealgate/home';
/** The run's /tmp (and TMPDIR): a fresh folder per run. */
export const SANDBOX_TMP = '/tmp';
/** The unprivileged user and group the project's code runs as. */
export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;

/** The namespaces bubblewrap unshares; cgroup only where the kernel allows it. */
export const UNSHARE: readonly string[] = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-net',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
];

export type Mount =
  | { readonly kind: 'ro-bind' | 'bind'; readonly src: string; readonly dest: string }
  | { readonly kind: 'symlink'; readonly target: string; readonly dest: string }
  /** An empty private file system over a path, hiding what the binds below would show. */
  | { readonly kind: 'tmpfs' | 'proc' | 'dev'; readonly dest: string }
  /** A file hidden behind /dev/null. */
  | { readonly kind: 'null'; readonly dest: string };

/** What the host offers a run; read once per process by `readHostView` (./host.ts). */
export interface HostView {
  /** Top-level system paths: a folder (bound read-only) or a link (recreated as one). */
  readonly system: readonly { readonly path: string; readonly link: string | null }[];
  /** Host paths bound read-only at the same place: interpreter roots from PATH, /etc pieces, libfaketime. */
  readonly readOnly: readonly string[];
  /** Paths never visible, whatever is bound above them: masked when a bind would show them. */
  readonly hidden: readonly { readonly path: string; readonly dir: boolean }[];
  /** Files of the run's fresh /proc masked by /dev/null (the kernel keyring's lists, where the host has them). */
  readonly procMasked?: readonly string[];
}

/** A dependency folder of the tree (node_modules, .venv ...): its name at the top of the tree and the host folder behind it. */
export interface DependencyFolder {
  readonly name: string;
  readonly src: string;
  /**
   * Folders inside it (relative, existing on the host) that every run gets empty and writable:
   * a fresh tmpfs over each, gone with the run. vite bundles a config file into
   * node_modules/.vite-temp and imports it from there, and fails on a read-only folder.
   */
  readonly scratch?: readonly string[];
}

/** The fresh host folders of one run: its copy of the tree, its HOME and its /tmp. */
export interface RunDirs {
  readonly work: string;
  readonly home: string;
  readonly tmp: string;
}

export interface SandboxRequest {
  readonly isolation: SandboxKind;
  /** The bubblewrap program. */
  readonly bwrap: string;
  /** Program and arguments, as the project's code sees them (no shell). */
  readonly command: readonly string[];
  /** The allowlisted environment (./runner/env.ts pinnedEnv); HOME and TMPDIR are set here. */
  readonly env: Readonly<Record<string, string>>;
  /** Variables naming a file in the run's TMPDIR (value: the file name), set to its path as the run sees it. */
  readonly tmpFiles?: Readonly<Record<string, string>>;
  readonly run: RunDirs;
  readonly host: HostView;
  readonly deps: readonly DependencyFolder[];
  readonly limits: SandboxLimits;
  readonly output: { readonly stdoutPath: string; readonly stderrPath: string };
}

export interface SandboxLimits {
  readonly timeoutMs: number;
  readonly capBytes: number;
  readonly killGraceMs?: number;
  /** Ends the run at once when aborted (runner/exec.ts). */
  readonly signal?: AbortSignal;
  /** A lower CPU priority (niceness 1 to 19) for the whole run: a run made beside the sealed one yields it the cores (runner/exec.ts). */
  readonly nice?: number;
}

export interface SandboxPlan {
  readonly isolation: SandboxKind;
  /** The project's command, unchanged. */
  readonly command: readonly string[];
  /** The working directory the project's code sees. */
  readonly cwd: string;
  /** The complete environment of the project's code. */
  readonly env: Readonly<Record<string, string>>;
  /** What it sees, in bubblewrap's order (empty when unsandboxed). */
  readonly mounts: readonly Mount[];
  /** What is spawned: bwrap, its options, `--`, the command (or the command alone when unsandboxed). */
  readonly argv: readonly string[];
  /** Where it is spawned on the host (the run's copy of the tree). */
  readonly hostCwd: string;
  readonly run: RunDirs;
  readonly limits: SandboxLimits;
  readonly output: { readonly stdoutPath: string; readonly stderrPath: string };
}

/** Is `p` the folder `dir` or inside it (POSIX paths, normalised)? */
export function isWithin(p: string, dir: string): boolean {
  const a = posix.normalize(p);
  const d = posix.normalize(dir);
  return a === d || a.startsWith(d === '/' ? '/' : `${d}/`);
}

/** The mounts of a run: system read-only, the run's three fresh folders writable, dependency folders read-only (their scratch folders fresh and writable), hidden paths masked. */
export function planMounts(req: Pick<SandboxRequest, 'run' | 'host' | 'deps'>): Mount[] {
  const hidden = req.host.hidden;
  const isHidden = (p: string): boolean => hidden.some((h) => isWithin(p, h.path));
  const mounts: Mount[] = [];
  const roSources: { src: string; dest: string }[] = [];
  const ro = (src: string, dest: string): void => {
    if (isHidden(src)) return;
    mounts.push({ kind: 'ro-bind', src, dest });
    roSources.push({ src, dest });
  };
  for (const s of req.host.system) {
    if (s.link !== null) mounts.push({ kind: 'symlink', target: s.link, dest: s.path });
    else ro(s.path, s.path);
  }
  for (const p of req.host.readOnly) ro(p, p);
  mounts.push({ kind: 'proc', dest: '/proc' });
  // The keyring is not namespaced: its list names the runner's keys (the seccomp filter keeps their contents out).
  for (const p of req.host.procMasked ?? []) mounts.push({ kind: 'null', dest: p });
  mounts.push({ kind: 'dev', dest: '/dev' });
  mounts.push({ kind: 'bind', src: req.run.tmp, dest: SANDBOX_TMP });
  mounts.push({ kind: 'bind', src: req.run.home, dest: SANDBOX_HOME });
  mounts.push({ kind: 'bind', src: req.run.work, dest: SANDBOX_WORK });
  // Dependency folders are checked by the host reader; here they only land read-only at their place in the tree.
  for (const d of req.deps) {
    const dest = posix.join(SANDBOX_WORK, d.name);
    mounts.push({ kind: 'ro-bind', src: d.src, dest });
    roSources.push({ src: d.src, dest });
    for (const rel of d.scratch ?? []) mounts.push({ kind: 'tmpfs', dest: posix.join(dest, rel) });
  }
  // A hidden path under anything bound above is covered, at the place it shows up inside.
  for (const h of hidden) {
    for (const b of roSources) {
      if (!isWithin(h.path, b.src) || h.path === b.src) continue;
      const dest = posix.join(b.dest, posix.relative(b.src, h.path));
      mounts.push(h.dir ? { kind: 'tmpfs', dest } : { kind: 'null', dest });
    }
  }
  return mounts;
}

function mountArgs(m: Mount): string[] {
  switch (m.kind) {
    case 'ro-bind':
      return ['--ro-bind', m.src, m.dest];
    case 'bind':
      return ['--bind', m.src, m.dest];
    case 'symlink':
      return ['--symlink', m.target, m.dest];
    case 'tmpfs':
      return ['--tmpfs', m.dest];
    case 'proc':
      return ['--proc', m.dest];
    case 'dev':
      return ['--dev', m.dest];
    case 'null':
      return ['--ro-bind', '/dev/null', m.dest];
  }
}

function inTmp(files: Readonly<Record<string, string>> | undefined, tmp: string): Record<string, string> {
  return Object.fromEntries(Object.entries(files ?? {}).map(([k, name]) => [k, posix.join(tmp, name)]));
}

/**
 * Sets the session group's niceness ($0), then becomes the command. The kernel takes one such
 * write every 100 ms across the whole machine from an unprivileged process (EAGAIN otherwise:
 * runs started together collide), so it tries again, 50 ms apart, up to 2 s; without a group
 * file (no autogroup) it does not try.
 */
const YIELD_SCRIPT =
  '[ -e /proc/self/autogroup ] && { n=0; until { echo "$0" > /proc/self/autogroup; } 2>/dev/null; do n=$((n + 1)); [ "$n" -ge 40 ] && break; sleep 0.05; done; }; exec "$@"';

/**
 * The words in front of the command that lower its CPU share to niceness `nice`, for a run that
 * must yield the cores. The process's own niceness (runner/exec.ts) is not enough where the
 * kernel groups the scheduling by session (autogroup, the Linux default): every run starts a
 * session of its own (bubblewrap's --new-session, a detached spawn), each session's group gets
 * an equal share whatever the niceness of its processes, and only the group's own niceness,
 * written to /proc/self/autogroup from inside the session, lowers it. Where there is no
 * autogroup the write fails quietly and the process's niceness does the work.
 */
export function yieldingPrefix(nice: number): string[] {
  return ['/bin/sh', '-c', YIELD_SCRIPT, String(checkNiceness(nice))];
}

/** One run's plan. Pure. */
export function planSandbox(req: SandboxRequest): SandboxPlan {
  if (req.command.length === 0) throw new Error('planSandbox: empty command');
  const run = req.limits.nice !== undefined ? [...yieldingPrefix(req.limits.nice), ...req.command] : [...req.command];
  const base = {
    command: [...req.command],
    run: req.run,
    limits: req.limits,
    output: req.output,
    hostCwd: req.run.work,
  };
  if (req.isolation === 'none') {
    const env = { ...req.env, ...inTmp(req.tmpFiles, req.run.tmp), HOME: req.run.home, TMPDIR: req.run.tmp };
    return { ...base, isolation: 'none', cwd: req.run.work, env, mounts: [], argv: run };
  }
  const env = { ...req.env, ...inTmp(req.tmpFiles, SANDBOX_TMP), HOME: SANDBOX_HOME, TMPDIR: SANDBOX_TMP };
  const mounts = planMounts(req);
  const argv = [
    req.bwrap,
    ...UNSHARE,
    '--die-with-parent',
    '--new-session',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_GID),
    '--hostname',
    'sealgate',
    ...mounts.flatMap(mountArgs),
    // The root itself (a private tmpfs holding the mount points) is read-only too.
    '--remount-ro',
    '/',
    // No kernel keyring: it is not namespaced, so it would be the runner's session keyring (./seccomp.ts).
    '--seccomp',
    String(SECCOMP_FD),
    '--chdir',
    SANDBOX_WORK,
    '--',
    ...run,
  ];
  return { ...base, isolation: 'bwrap', cwd: SANDBOX_WORK, env, mounts, argv };
}
