// Which mutants are valid programs: a mutant that does not compile or does not type-check
// would fail its tests for a reason that is not behaviour (a load failure counts as a failure
// of every test the file holds), so it is discarded before it runs and another takes its
// place. Invalid only ever loses a mutant, never grants a kill.
import { execFile } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type * as TS from 'typescript';

// Required when a TS check first needs it, not when this module loads: a Python-only credit step never compiles the 9 MB compiler.
let tsModule: typeof TS | undefined;
const typescript = (): typeof TS => (tsModule ??= createRequire(import.meta.url)('typescript') as typeof TS);

/** Why one mutated file is not a valid program, or null when it is. */
export type Validity = (path: string, original: string, mutated: string) => string | null;

const TYPED = /\.[cm]?tsx?$/;

const within = (root: string, p: string): boolean => {
  const r = relative(root, p);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};

/** Error diagnostics as "TSnnnn: message" keys, counted (positions shift in a mutant, so they are left out). */
function countKeys(diags: readonly TS.Diagnostic[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of diags) {
    if (d.category !== typescript().DiagnosticCategory.Error) continue;
    const k = `TS${d.code}: ${typescript().flattenDiagnosticMessageText(d.messageText, ' ').slice(0, 200)}`;
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

/** Options of the tsconfig nearest to `file` inside `root` (the project's), or defaults; never a file outside the tree. */
function optionsFor(
  file: string,
  root: string,
  host: TS.ParseConfigHost,
): { options: TS.CompilerOptions; ambient: string[] } {
  const defaults: TS.CompilerOptions = {
    target: typescript().ScriptTarget.ES2022,
    module: typescript().ModuleKind.ESNext,
    moduleResolution: typescript().ModuleResolutionKind.Bundler,
    strict: false,
    skipLibCheck: true,
    allowJs: false,
  };
  let dir = dirname(file);
  let config: string | null = null;
  while (within(root, dir)) {
    const c = join(dir, 'tsconfig.json');
    if (host.fileExists(c)) {
      config = c;
      break;
    }
    if (dir === root) break;
    dir = dirname(dir);
  }
  if (config === null) return { options: defaults, ambient: [] };
  const parsed = typescript().getParsedCommandLineOfConfigFile(
    config,
    {},
    { ...host, getCurrentDirectory: () => root, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!parsed) return { options: defaults, ambient: [] };
  // Global declarations the project includes (a global.d.ts): they are part of what the file sees.
  const ambient = parsed.fileNames.filter((f) => f.endsWith('.d.ts') && within(root, f)).slice(0, 200);
  return {
    options: { ...parsed.options, noEmit: true, skipLibCheck: true, incremental: false, composite: false, plugins: [] },
    ambient,
  };
}

/**
 * A type checker for the mutated TS files of one tree: one language service per tsconfig,
 * reused, with the mutated file swapped in. A mutant is invalid when its file has an error
 * diagnostic (syntax or type) the unmutated file does not have. It reads only files inside
 * the tree, the dependency folder `node_modules` of `depsFrom` (seen at the tree's root, as the
 * runs see it) and TypeScript's own lib files; nothing of the tree is executed.
 */
export function makeTsValidity(root0: string, depsFrom?: string): Validity {
  const root = realpathSync(root0);
  const libDir = dirname(typescript().getDefaultLibFilePath({}));
  const deps =
    depsFrom !== undefined && existsSync(join(depsFrom, 'node_modules'))
      ? realpathSync(join(depsFrom, 'node_modules'))
      : null;
  const treeDeps = join(root, 'node_modules');
  /** The real path a read of `p` goes to, or null when it lies outside what may be read. */
  const place = (p0: string): string | null => {
    const p = resolve(p0);
    let target = p;
    if (deps !== null && !existsSync(treeDeps) && within(treeDeps, p)) target = join(deps, relative(treeDeps, p));
    let real: string;
    try {
      real = realpathSync(target);
    } catch {
      // Not there: fine to say so, as long as the question is about an allowed place.
      return within(root, target) || within(libDir, target) || (deps !== null && within(deps, target)) ? target : null;
    }
    return within(root, real) || within(libDir, real) || (deps !== null && within(deps, real)) ? real : null;
  };
  const sys = typescript().sys;
  const fileExists = (p: string): boolean => {
    const x = place(p);
    return x !== null && sys.fileExists(x);
  };
  const readFile = (p: string): string | undefined => {
    const x = place(p);
    return x === null ? undefined : sys.readFile(x);
  };
  const directoryExists = (p: string): boolean => {
    const x = place(p);
    return x !== null && sys.directoryExists(x);
  };
  const parseHost: TS.ParseConfigHost = {
    useCaseSensitiveFileNames: true,
    fileExists,
    readFile,
    readDirectory: (d, ext, excl, incl, depth) =>
      place(d) === null ? [] : sys.readDirectory(d, ext, excl, incl, depth).filter((f) => place(f) !== null),
  };

  interface Service {
    readonly service: TS.LanguageService;
    readonly texts: Map<string, { text: string; version: number }>;
    readonly roots: string[];
  }
  const services = new Map<string, Service>();
  const baseline = new Map<string, Map<string, number>>();

  const configs = new Map<string, ReturnType<typeof optionsFor>>();
  const serviceFor = (file: string): Service => {
    let cfg = configs.get(file);
    if (cfg === undefined) {
      cfg = optionsFor(file, root, parseHost);
      configs.set(file, cfg);
    }
    const { options, ambient } = cfg;
    const key = JSON.stringify(options);
    let s = services.get(key);
    if (s === undefined) {
      const texts = new Map<string, { text: string; version: number }>();
      const roots = [...ambient];
      const host: TS.LanguageServiceHost = {
        getCompilationSettings: () => options,
        getScriptFileNames: () => roots,
        getScriptVersion: (f) => String(texts.get(f)?.version ?? 0),
        getScriptSnapshot: (f) => {
          const t = texts.get(f)?.text ?? readFile(f);
          return t === undefined ? undefined : typescript().ScriptSnapshot.fromString(t);
        },
        getCurrentDirectory: () => root,
        getDefaultLibFileName: (o) => typescript().getDefaultLibFilePath(o),
        fileExists: (f) => texts.has(f) || fileExists(f),
        readFile: (f) => texts.get(f)?.text ?? readFile(f),
        directoryExists,
        getDirectories: (d) => (place(d) === null ? [] : sys.getDirectories(d)),
        realpath: (p) => place(p) ?? p,
        useCaseSensitiveFileNames: () => true,
      };
      s = { service: typescript().createLanguageService(host, typescript().createDocumentRegistry()), texts, roots };
      services.set(key, s);
    }
    if (!s.roots.includes(file)) s.roots.push(file);
    return s;
  };

  const diagnose = (s: Service, file: string, text: string): Map<string, number> => {
    const prev = s.texts.get(file);
    s.texts.set(file, { text, version: (prev?.version ?? 0) + 1 });
    return countKeys([...s.service.getSyntacticDiagnostics(file), ...s.service.getSemanticDiagnostics(file)]);
  };

  return (path, original, mutated) => {
    if (!TYPED.test(path)) return null;
    const file = join(root, path);
    if (!within(root, file)) return 'its file lies outside the tree';
    const s = serviceFor(file);
    const bk = `${file}\u0000${original}`;
    let before = baseline.get(bk);
    if (before === undefined) {
      before = diagnose(s, file, original);
      baseline.set(bk, before);
    }
    const after = diagnose(s, file, mutated);
    for (const [k, n] of after) if (n > (before.get(k) ?? 0)) return `it does not type-check (${k})`;
    return null;
  };
}

/** The worker thread's start (valid-worker.ts), its questions and answers. */
export const VALID_WORKER_TAG = 'sealgate-ts-validity-1';
export interface ValidityStart {
  readonly tag: typeof VALID_WORKER_TAG;
  readonly root: string;
  readonly depsFrom: string | null;
}
export interface ValidityAsk {
  readonly id: number;
  readonly path: string;
  readonly original: string;
  readonly mutated: string;
}
export type ValidityAnswer =
  | { readonly id: number; readonly ok: true; readonly why: string | null }
  | { readonly id: number; readonly ok: false; readonly error: string };

/** makeTsValidity, answered by a worker thread. */
export interface AsyncValidity {
  check(path: string, original: string, mutated: string): Promise<string | null>;
  /** Stop the worker (every answer given or not). */
  close(): void;
  /** Set once a check ran over its time: it and every later check had no opinion (null). */
  readonly stalled: string | null;
}

/** How long one type check may take in the worker (the first builds the program) before the checks stop. */
export const TS_CHECK_TIMEOUT_MS = 120_000;

/**
 * makeTsValidity in a worker thread (valid-worker.ts), so that the seconds of type checking
 * leave this thread free for the credit runs. Where the worker cannot start or dies, the
 * checks still asked and all later ones run here (makeTsValidity): the same answers, slower.
 */
export function makeTsValidityWorker(
  root: string,
  depsFrom?: string,
  workerUrl?: URL,
  timeoutMs = TS_CHECK_TIMEOUT_MS,
): AsyncValidity {
  const here = import.meta.url;
  const fromSources = here.endsWith('.ts');
  const url =
    workerUrl ?? new URL(`./valid-worker${fromSources ? '.ts' : here.endsWith('.cjs') ? '.cjs' : '.js'}`, here);
  const data: ValidityStart = { tag: VALID_WORKER_TAG, root, depsFrom: depsFrom ?? null };
  let local: Validity | null = null;
  const inThread = (): Validity => (local ??= makeTsValidity(root, depsFrom));
  const waiting = new Map<
    number,
    { ask: ValidityAsk; done: (why: string | null) => void; fail: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  let next = 0;
  let worker: Worker | null = null;
  let stalled: string | null = null;
  // A check over its time: the worker is stopped, and that check and every later one has no
  // opinion (the mutant runs; a compile error in the run is a crash there, never a kill).
  const stall = (): void => {
    stalled = `a type check took over ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}, so the remaining mutants were not type-checked (a mutant that does not compile crashes its run, never a kill)`;
    const w = worker;
    worker = null;
    for (const [id, p] of waiting) {
      waiting.delete(id);
      clearTimeout(p.timer);
      p.done(null);
    }
    if (w !== null) void w.terminate();
  };
  const giveUp = (): void => {
    if (stalled !== null) return;
    worker = null;
    for (const [id, w] of waiting) {
      waiting.delete(id);
      clearTimeout(w.timer);
      try {
        w.done(inThread()(w.ask.path, w.ask.original, w.ask.mutated));
      } catch (err) {
        w.fail(err instanceof Error ? err : new Error(String(err)));
      }
    }
  };
  try {
    const w = fromSources
      ? new Worker(`import('tsx/esm/api').then((m) => m.register()).then(() => import(${JSON.stringify(url.href)}))`, {
          eval: true,
          workerData: data,
          execArgv: [],
        })
      : new Worker(url, { workerData: data, execArgv: [] });
    w.unref();
    w.on('message', (a: ValidityAnswer) => {
      const p = waiting.get(a.id);
      if (p === undefined) return;
      waiting.delete(a.id);
      clearTimeout(p.timer);
      if (a.ok) p.done(a.why);
      else p.fail(new Error(`the TypeScript validity check failed: ${a.error}`));
    });
    w.once('error', giveUp);
    w.once('exit', giveUp);
    worker = w;
  } catch {
    worker = null;
  }
  return {
    check(path, original, mutated) {
      if (stalled !== null) return Promise.resolve(null);
      if (worker === null) return Promise.resolve(inThread()(path, original, mutated));
      const ask: ValidityAsk = { id: next++, path, original, mutated };
      const w = worker;
      const answer = new Promise<string | null>((done, fail) => {
        // Only the oldest question is being worked on; the others wait their turn, so the clock runs per answer.
        const timer = setTimeout(stall, timeoutMs * (waiting.size + 1));
        timer.unref();
        waiting.set(ask.id, { ask, done, fail, timer });
      });
      w.postMessage(ask);
      return answer;
    },
    get stalled() {
      return stalled;
    },
    close() {
      const w = worker;
      worker = null;
      if (w !== null) void w.terminate();
    },
  };
}

/**
 * Whether Python texts compile (`compile()`, nothing run), in one isolated interpreter (`-I -S`:
 * no site, no user paths, no environment). Null per text when it compiles, else the error;
 * every entry null when no interpreter is there (the parse check still ran). A child process
 * the event loop waits on: the runs the oracle has started go on meanwhile.
 */
export function checkPyCompiles(
  items: readonly { readonly path: string; readonly text: string }[],
  python = 'python3',
): Promise<(string | null)[]> {
  if (items.length === 0) return Promise.resolve([]);
  const script = [
    'import sys, json',
    'out = []',
    'for p, t in json.load(sys.stdin):',
    '    try:',
    '        compile(t, p, "exec", dont_inherit=True)',
    '        out.append(None)',
    '    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as e:',
    '        out.append(type(e).__name__ + ": " + str(getattr(e, "msg", e))[:200] + (" (line %s)" % e.lineno if getattr(e, "lineno", None) else ""))',
    'sys.stdout.write(json.dumps(out))',
  ].join('\n');
  const none = (): (string | null)[] => items.map(() => null);
  return new Promise((resolvePromise) => {
    execFile(
      python,
      ['-I', '-S', '-c', script],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        cwd: '/',
        maxBuffer: 64 * 1024 * 1024,
        timeout: 60_000,
      },
      (err, stdout) => {
        if (err) return resolvePromise(none());
        try {
          const v = JSON.parse(stdout) as unknown;
          if (Array.isArray(v) && v.length === items.length && v.every((x) => x === null || typeof x === 'string'))
            return resolvePromise(v as (string | null)[]);
        } catch {
          /* an answer we cannot read: no opinion */
        }
        resolvePromise(none());
      },
    )
      .on('error', () => resolvePromise(none()))
      .stdin?.on('error', () => undefined)
      .end(JSON.stringify(items.map((i) => [i.path, i.text])));
  });
}

/** A mutant left out because it is not a valid program, and why. */
export interface Discarded {
  readonly mutant: string;
  readonly reason: string;
}

/**
 * The first `budget` valid mutants of `ordered` (the seed's order): each invalid one is
 * discarded and the next candidate takes its place. One check at a time, in order.
 */
export async function pickValidAsync<M extends { readonly id: string }>(
  ordered: readonly M[],
  budget: number,
  invalid: (m: M) => Promise<string | null>,
): Promise<{ picked: M[]; discarded: Discarded[] }> {
  const picked: M[] = [];
  const discarded: Discarded[] = [];
  for (const m of ordered) {
    if (picked.length >= budget) break;
    const why = await invalid(m);
    if (why === null) picked.push(m);
    else discarded.push({ mutant: m.id, reason: why });
  }
  return { picked, discarded };
}

const TS_ERROR = /error TS(\d{4,5}):/;
const PY_ERROR = /\b(SyntaxError|IndentationError|TabError)\b/;

/**
 * The runner's own compile-error shape for a mutated file, or null: ts-jest's type errors
 * ("<path>:<line>:<col> - error TSnnnn: …") and Python's SyntaxError while collecting or
 * importing it. Both name the file. A test can print such text too; that only turns its own
 * kill into nothing.
 */
export function compileErrorIn(output: string, path: string): string | null {
  const base = path.split('/').at(-1) ?? path;
  for (const line of output.split('\n')) {
    if (!line.includes(base)) continue;
    const ts = TS_ERROR.exec(line);
    if (ts && /\.[cm]?tsx?$/.test(path)) return `TS${ts[1] ?? ''}`;
  }
  if (path.endsWith('.py') && output.includes(base)) {
    const py = PY_ERROR.exec(output);
    if (py) return py[1] ?? 'SyntaxError';
  }
  return null;
}

/**
 * A mutant run whose failures came (at least in part) through a load failure, while the
 * runner's output shows the mutated file does not compile or type-check, is not a kill: it is
 * a crash ("invalid at run time"). The static checks above should have caught it; this is the
 * net for a runner configured differently (a jest `tsconfig` of its own, say).
 */
export function checkRuntimeValidity<
  S extends {
    readonly status: 'ok' | 'timeout' | 'crash';
    readonly detail: string;
    readonly failed: readonly string[];
  },
>(
  seen: S,
  reportedFailed: ReadonlySet<string>,
  output: string,
  path: string,
): S | { status: 'crash'; detail: string; failed: string[] } {
  if (seen.status !== 'ok' || seen.failed.every((t) => reportedFailed.has(t))) return seen;
  const err = compileErrorIn(output, path);
  if (err === null) return seen;
  return {
    status: 'crash',
    detail: `${seen.detail}: the mutated ${path} does not compile or type-check under the test runner (${err}), so its load failure is not a kill`,
    failed: [],
  };
}

/**
 * Whether the test run type-checks TS (so a mutant that does not type-check fails to load):
 * `tsc` (or `vue-tsc`) in the command or in the `npm test` script it runs, or jest with ts-jest
 * in the tree's jest configuration, unless ts-jest only transpiles there (tsJestTranspilesOnly).
 * Elsewhere (vitest, tsx, esbuild) types are erased, a mutant that does not type-check still
 * runs, and only parsing decides. `readDepFile` reads the repository's installed dependencies
 * (node_modules); without it ts-jest is taken to type-check.
 */
export function checkRunnerTypeChecks(
  command: readonly string[],
  readTreeFile: (path: string) => string | null,
  readDepFile?: (path: string) => string | null,
): boolean {
  const words = (ws: readonly string[]): boolean => ws.some((w) => /(^|\/)(vue-)?tsc$/.test(w));
  let cmd = [...command];
  const prog = (cmd[0] ?? '').split('/').at(-1) ?? '';
  if (
    ['npm', 'yarn', 'pnpm'].includes(prog) &&
    (cmd[1] === 'test' || cmd[1] === 't' || (cmd[1] === 'run' && cmd[2] === 'test'))
  ) {
    try {
      const pkg = JSON.parse(readTreeFile('package.json') ?? '{}') as { scripts?: { test?: unknown } };
      if (typeof pkg.scripts?.test === 'string') cmd = pkg.scripts.test.split(/\s+|&&|;/).filter((w) => w !== '');
    } catch {
      /* no readable package.json: the command as given */
    }
  }
  if (words(cmd)) return true;
  if (!cmd.some((w) => /(^|\/)jest$/.test(w))) return false;
  const configs = [
    'package.json',
    'jest.config.js',
    'jest.config.ts',
    'jest.config.cjs',
    'jest.config.mjs',
    'jest.config.json',
  ].map((f) => readTreeFile(f) ?? '');
  if (!configs.some((t) => t.includes('ts-jest'))) return false;
  return !(readDepFile !== undefined && tsJestTranspilesOnly(configs.join('\n'), cmd, readTreeFile, readDepFile));
}

/**
 * Does ts-jest only transpile here (no type check, so a mutant that does not type-check still
 * runs)? ts-jest 29.3 and later transpile each file alone when the tsconfig.json it reads has
 * `isolatedModules: true` (measured on vercel/ms: a type error in src/index.ts fails every suite
 * with it false, none with it true). Only the plain case counts: installed ts-jest 29.3 to 29.x,
 * no jest option that could point ts-jest at another tsconfig or root (`tsconfig`, `rootDir`,
 * `projects`, `isolatedModules`, `--config`), and the tree's tsconfig.json itself (no `extends`
 * deciding it) setting `isolatedModules` to true. Anything else keeps the type check. Taken
 * wrongly, a mutant that does not type-check would run where ts-jest refuses it: a load failure
 * whose output names the type error, a crash and never a kill (checkRuntimeValidity).
 */
export function tsJestTranspilesOnly(
  jestConfigText: string,
  command: readonly string[],
  readTreeFile: (path: string) => string | null,
  readDepFile: (path: string) => string | null,
): boolean {
  if (/\b(tsconfig|rootDir|projects|isolatedModules)\b/.test(jestConfigText)) return false;
  if (command.some((w) => /^(-c|--config|--rootDir|--projects)(=|$)/.test(w))) return false;
  let version: unknown;
  try {
    version = (JSON.parse(readDepFile('node_modules/ts-jest/package.json') ?? 'null') as { version?: unknown } | null)
      ?.version;
  } catch {
    return false;
  }
  const m = typeof version === 'string' ? /^29\.(\d+)\.\d+$/.exec(version) : null;
  if (m === null || Number(m[1]) < 3) return false;
  const text = readTreeFile('tsconfig.json');
  const plain = text === null || text.length > 1024 * 1024 ? null : stripJsonc(text);
  // One `isolatedModules` key in the whole file: a duplicate (which one wins?) keeps the type check.
  if (plain === null || (plain.match(/"isolatedModules"\s*:/g) ?? []).length !== 1) return false;
  let tsconfig: unknown;
  try {
    tsconfig = JSON.parse(plain);
  } catch {
    return false;
  }
  if (tsconfig === null || typeof tsconfig !== 'object' || Array.isArray(tsconfig)) return false;
  const options = (tsconfig as { compilerOptions?: unknown }).compilerOptions;
  return (
    options !== null &&
    typeof options === 'object' &&
    (options as { isolatedModules?: unknown }).isolatedModules === true
  );
}

/** JSON with comments and trailing commas (tsconfig.json): its plain JSON text, or null when a string or comment does not end. */
export function stripJsonc(text: string): string | null {
  const str = /"(?:[^"\\\n]|\\.)*"/y;
  const trailing = /,\s*[}\]]/y;
  // Twice over, strings kept whole: the comments go, then the trailing commas (a comment may sit between one and its bracket).
  const pass = (src: string, other: (c: string, i: number) => [string, number] | null): string | null => {
    let out = '';
    for (let i = 0; i < src.length; i++) {
      const c = src[i] as string;
      if (c === '"') {
        str.lastIndex = i;
        const end = str.exec(src);
        if (end === null) return null;
        out += end[0];
        i += end[0].length - 1;
        continue;
      }
      const r = other(c, i);
      if (r === null) return null;
      out += r[0];
      i = r[1];
    }
    return out;
  };
  const noComments = pass(text, (c, i) => {
    if (c === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i);
      return ['', nl < 0 ? text.length : nl - 1];
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      return close < 0 ? null : [' ', close + 1];
    }
    return [c, i];
  });
  if (noComments === null) return null;
  return pass(noComments, (c, i) => {
    trailing.lastIndex = i;
    return [c === ',' && trailing.test(noComments) ? '' : c, i];
  });
}
