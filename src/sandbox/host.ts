import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../core/package-root.js';
import type { SandboxKind } from '../config/schema.js';
import { SealgateError } from '../core/errors.js';
import { isWithin, type DependencyFolder, type HostView } from './plan.js';
import { keyringFilter } from './seccomp.js';

/**
 * What the host offers a sandboxed run, read from the file system and the caller's PATH;
 * and whether bubblewrap works here at all. The only I/O of the sandbox besides running it.
 */

/** Top-level system paths: bound read-only when folders, recreated when links (usr-merged systems). */
export const SYSTEM_PATHS: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** The pieces of /etc a test command needs (the loader, users and groups, time zones, certificates, alternatives). */
export const ETC_PATHS: readonly string[] = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/hosts',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/ssl',
  '/etc/ca-certificates',
  '/etc/mime.types',
  '/etc/python3',
  '/etc/pythonstartup',
];

/** Folder names that are dependency folders: bound read-only at the top of the tree, never copied. */
export const DEPENDENCY_DIRS: readonly string[] = ['node_modules', '.venv', 'venv'];

export interface HostInputs {
  /** The caller's environment (PATH, XDG_CACHE_HOME, HOME, SSH_AUTH_SOCK are read). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Paths that must never be visible: sealgate's install, its caches, review/, .git, keys. */
  readonly hidden: readonly string[];
  /** Extra host files or folders bound read-only (libfaketime ...). */
  readonly extraReadOnly?: readonly string[];
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * The interpreter roots behind PATH: every absolute PATH folder outside the system paths,
 * or, for a version manager's `shims`/`bin` folder (pyenv, rbenv, nodenv: a `versions`
 * folder beside it), the manager's whole root.
 */
export function pathRoots(pathVar: string | undefined): string[] {
  const out: string[] = [];
  for (const entry of (pathVar ?? '').split(':')) {
    if (entry === '' || !isAbsolute(entry)) continue;
    const real = realOrNull(entry);
    if (real === null || SYSTEM_PATHS.some((s) => isWithin(real, s))) continue;
    if (!statSync(real).isDirectory()) continue;
    let root = real;
    for (let d = real; d !== dirname(d); d = dirname(d)) {
      if (existsSync(join(d, 'versions')) && (existsSync(join(d, 'shims')) || existsSync(join(d, 'libexec')))) {
        root = d;
        break;
      }
    }
    if (!out.some((o) => isWithin(root, o))) out.push(root);
  }
  return out;
}

/** The host view for every run of this process. */
export function readHostView(inputs: HostInputs): HostView {
  const system = SYSTEM_PATHS.flatMap((path): { path: string; link: string | null }[] => {
    const st = lstatOrNull(path);
    if (st === null) return [];
    if (st.isSymbolicLink()) return [{ path, link: readlinkSync(path) }];
    return st.isDirectory() ? [{ path, link: null }] : [];
  });
  const hidden: { path: string; dir: boolean }[] = [];
  const hide = (p: string | undefined): void => {
    if (p === undefined || p === '' || !isAbsolute(p)) return;
    for (const q of new Set([resolve(p), realOrNull(p) ?? resolve(p)])) {
      const st = lstatOrNull(q);
      if (!hidden.some((h) => h.path === q)) hidden.push({ path: q, dir: st === null || st.isDirectory() });
    }
  };
  for (const p of inputs.hidden) hide(p);
  const sock = inputs.env.SSH_AUTH_SOCK;
  if (sock !== undefined && isAbsolute(sock)) hide(dirname(sock));
  const readOnly: string[] = [];
  for (const p of [...ETC_PATHS, ...pathRoots(inputs.env.PATH), ...(inputs.extraReadOnly ?? [])]) {
    if (!existsSync(p) || SYSTEM_PATHS.some((s) => isWithin(p, s) && p !== s)) continue;
    // A PATH folder that holds a hidden path (a PATH entry like / or the repository) is left out whole.
    if (hidden.some((h) => isWithin(h.path, p) || isWithin(p, h.path))) continue;
    if (!readOnly.includes(p)) readOnly.push(p);
  }
  return { system, readOnly, hidden, procMasked: PROC_KEYRING.filter((p) => existsSync(p)) };
}

/** The kernel keyring's lists in /proc: every key's description, and per-uid counts. */
const PROC_KEYRING = ['/proc/keys', '/proc/key-users'];

/**
 * The dependency folders at the top of `tree`: real folders, or links to a folder of the
 * same kind (named node_modules, .venv, venv or site-packages) that lies in no hidden path
 * except as the hidden install's own node_modules (the example links sealgate's, for tsx).
 */
export function readDependencyFolders(
  tree: string,
  forbidden: readonly string[],
  install: string | null,
): { deps: DependencyFolder[]; refused: string[] } {
  const deps: DependencyFolder[] = [];
  const refused: string[] = [];
  for (const name of DEPENDENCY_DIRS) {
    const p = join(tree, name);
    const st = lstatOrNull(p);
    if (st === null) continue;
    const real = realOrNull(p);
    if (real === null || !statSync(real).isDirectory()) {
      refused.push(`${name}: not a folder`);
      continue;
    }
    if (st.isSymbolicLink()) {
      const base = real.split('/').pop() ?? '';
      if (![...DEPENDENCY_DIRS, 'site-packages'].includes(base)) {
        refused.push(`${name}: links to ${real}, which is not a dependency folder`);
        continue;
      }
    }
    const ownDeps = install !== null && real === join(install, 'node_modules');
    if (!ownDeps && forbidden.some((h) => isWithin(real, h) || isWithin(h, real))) {
      // The common case: `npm install -D sealgate` in the project under test.
      if (install !== null && isWithin(install, real))
        refused.push(
          `${name}: ${real} holds sealgate's own install (${install}), which the tests may not see; install sealgate outside the repository (npm install --prefix DIR sealgate, as the CI workflow does) and run DIR/node_modules/.bin/sealgate`,
        );
      else refused.push(`${name}: ${real} is a path the tests may not see`);
      continue;
    }
    deps.push({ name, src: real });
  }
  return { deps, refused };
}

/** Why bubblewrap cannot run here, or null when `bwrap ... true` works. Probed once per process and program. */
const probed = new Map<string, string | null>();
export const SANDBOX_NEXT_STEP =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), and allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 (Debian kernels), user.max_user_namespaces > 0, and on Ubuntu 24.04 and later kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile for bwrap); or set sandbox: "none" in the base policy to run unsandboxed, recorded as such';

const PROBE_ARGS = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-net',
  '--unshare-ipc',
  '--unshare-uts',
  '--die-with-parent',
  '--new-session',
  '--uid',
  '1000',
  '--gid',
  '1000',
  '--ro-bind',
  '/',
  '/',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--',
  'true',
];
const PROBE_ENV = { PATH: '/usr/bin:/bin' };

function probeProblem(bwrap: string, error: Error | undefined, status: number | null, stderr: string): string | null {
  if (error)
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? `bubblewrap (${bwrap}) is not installed`
      : `bubblewrap could not start: ${error.message}`;
  if (status !== 0)
    return `bubblewrap cannot create its namespaces here (exit ${String(status)}): ${stderr.trim().split('\n')[0] ?? ''}`;
  return null;
}

export function probeSandbox(bwrap: string): string | null {
  const known = probed.get(bwrap);
  if (known !== undefined) return known;
  const r = spawnSync(bwrap, PROBE_ARGS, { env: PROBE_ENV, encoding: 'utf8', timeout: 30_000 });
  const problem = probeProblem(bwrap, r.error, r.status, r.stderr);
  probed.set(bwrap, problem);
  return problem;
}

/**
 * The same probe, started now and awaited later: a command that builds its tree first (`run`)
 * starts it before, so the sandbox's start-up overlaps the git work instead of following it.
 * The answer lands where probeSandbox finds it; it is the same probe, with the same verdict.
 */
export function prefetchSandboxProbe(bwrap: string): Promise<void> {
  if (probed.has(bwrap)) return Promise.resolve();
  return new Promise((done) => {
    let stderr = '';
    const settle = (error: Error | undefined, status: number | null): void => {
      if (!probed.has(bwrap)) probed.set(bwrap, probeProblem(bwrap, error, status, stderr));
      done();
    };
    let child;
    try {
      child = spawn(bwrap, PROBE_ARGS, { env: PROBE_ENV, stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      settle(err as Error, null);
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.once('error', (err) => {
      clearTimeout(timer);
      settle(err, null);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      settle(undefined, status);
    });
  });
}

/** bwrap in the system paths. The commands take `SEALGATE_BWRAP` from the runner's own environment first (a test's environment never reaches the runner: it runs inside the sandbox). */
export function findBwrap(): string {
  for (const d of ['/usr/bin', '/bin', '/usr/local/bin']) if (existsSync(join(d, 'bwrap'))) return join(d, 'bwrap');
  return 'bwrap';
}

/** The bubblewrap program a runner job's own environment names (SEALGATE_BWRAP), or undefined for the default. */
export function bwrapOverride(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const named = env['SEALGATE_BWRAP'];
  return named !== undefined && named !== '' ? named : undefined;
}

/** The bubblewrap program to run: SEALGATE_BWRAP, else bwrap in the system paths. */
export function bwrapProgram(env: Readonly<Record<string, string | undefined>>): string {
  return bwrapOverride(env) ?? findBwrap();
}

/** E_SANDBOX_UNAVAILABLE unless `isolation` can be carried out here. */
export function requireSandbox(isolation: SandboxKind, bwrap: string, path: string): void {
  if (isolation === 'none') return;
  if (keyringFilter() === null)
    throw new SealgateError('E_SANDBOX_UNAVAILABLE', [
      {
        code: 'E_SANDBOX_UNAVAILABLE',
        path,
        detail: `sealgate has no seccomp filter for this architecture (${process.arch}), so the kernel keyring (not namespaced: the runner's session keyring) cannot be kept from the tests; ${SANDBOX_NEXT_STEP}`,
      },
    ]);
  const problem = probeSandbox(bwrap);
  if (problem !== null)
    throw new SealgateError('E_SANDBOX_UNAVAILABLE', [
      { code: 'E_SANDBOX_UNAVAILABLE', path, detail: `${problem}; ${SANDBOX_NEXT_STEP}` },
    ]);
}

/** Top-level entries of a tree to copy for a run: everything but .git, review/ and the dependency folders. */
export function listCopyEntries(tree: string): string[] {
  return readdirSync(tree)
    .filter((n) => n !== '.git' && n !== 'review' && !DEPENDENCY_DIRS.includes(n))
    .sort();
}

/** The paths of one repository the project's code never sees, and those a dependency folder may not lie in. */
export interface Secrets {
  /** Never visible: the repository itself (only its copy is), sealgate's install, its caches, keys. */
  readonly hidden: readonly string[];
  /** A dependency folder may not lie in or hold one of these (the repository's own node_modules may lie in it). */
  readonly forbidden: readonly string[];
  /** sealgate's install, whose node_modules alone a tree may link (the bundled example does). */
  readonly install: string | null;
}

/** The secrets of a run on `repo` for the caller's environment. `extra`: more paths (a signing key, a custom cache). */
export function readSecrets(
  repo: string,
  env: Readonly<Record<string, string | undefined>>,
  install: string | null,
  extra: readonly string[] = [],
): Secrets {
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : null;
  const xdg =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== ''
      ? env.XDG_CACHE_HOME
      : home !== null
        ? join(home, '.cache')
        : null;
  const forbidden = [
    join(repo, 'review'),
    join(repo, '.git'),
    ...(xdg !== null ? [join(xdg, 'sealgate')] : []),
    ...(install !== null ? [install] : []),
    ...extra,
  ];
  const real = (p: string): string[] => [
    p,
    ...(realOrNull(p) !== null && realOrNull(p) !== p ? [realOrNull(p) as string] : []),
  ];
  return {
    hidden: [...new Set([repo, ...forbidden].flatMap(real))],
    forbidden: [...new Set(forbidden.flatMap(real))],
    install,
  };
}

/** sealgate's own install: the package root, or (a copy without package.json) the folder two above this file (dist/bundle/x.cjs, src/sandbox/host.ts). */
export function installRoot(): string {
  try {
    return packageRoot();
  } catch {
    return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  }
}
