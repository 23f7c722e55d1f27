// The type check of TS mutants: an error the unmutated file does not have makes a mutant invalid.
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
