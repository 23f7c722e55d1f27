// Byte code for the credit runs' base copy, made by the host's interpreter before the first run (a speed-up).
import { execFile } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, posix } from 'node:path';

/**
 * What precompilePython made for the base copy: hash-checked byte code for every regular `.py`
 * file but the changed ones, and pytest's rewritten byte code for its test files where every run
 * has the same working directory (docs/credit.md, "The mutation oracle", step 3).
 */
export interface PrecompileResult {
  /** Byte-code files written (both kinds). */
  readonly files: number;
  /** Of those, pytest's rewritten ones. */
  readonly rewritten: number;
  /** Why nothing was made (no interpreter, a cap, a failure), or null. */
  readonly skipped: string | null;
}

// Past these (seconds of compiling before the first run), the runs compile their own imports.
const MAX_FILES = 5_000;
const MAX_BYTES = 8 * 1024 * 1024;

/** The files pytest rewrites by default (python_files, conftest.py). */
export const PYTEST_REWRITES = /(^|\/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py)$/;

const SCRIPT = [
  'import sys, os, json, stat, ast, io, inspect, importlib.util',
  'from importlib._bootstrap_external import _code_to_hash_pyc',
  'root, cwd = sys.argv[1], sys.argv[2]',
  'rw = None',
  'if cwd:',
  '    try:',
  '        from _pytest.assertion import rewrite as rw',
  '    except Exception:',
  '        rw = None',
  'hashed = rw is not None and list(inspect.signature(rw._write_pyc_fp).parameters)[1:2] == ["source_hash"]',
  'flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)',
  'def put(out, data):',
  '    if not stat.S_ISDIR(os.lstat(os.path.dirname(out)).st_mode):',
  '        return 0',
  '    tmp = out + ".sealgate-tmp"',
  '    fd = os.open(tmp, flags, 0o644)',
  '    with os.fdopen(fd, "wb") as f:',
  '        f.write(data)',
  '    os.rename(tmp, out)',
  '    return 1',
  'made = rewritten = 0',
  'for rel, test in json.load(sys.stdin):',
  '    src = os.path.join(root, rel)',
  '    st = os.lstat(src)',
  '    if not stat.S_ISREG(st.st_mode):',
  '        continue',
  '    fd = os.open(src, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))',
  '    with os.fdopen(fd, "rb") as f:',
  '        data = f.read()',
  '    try:',
  '        code = compile(data, rel, "exec", dont_inherit=True)',
  '    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):',
  '        continue',
  '    made += put(importlib.util.cache_from_source(src), _code_to_hash_pyc(code, importlib.util.source_hash(data), True))',
  '    if test and rw is not None:',
  '        where = os.path.join(cwd, rel)',
  '        try:',
  '            tree = ast.parse(data, filename=where)',
  '            rw.rewrite_asserts(tree, data, where, None)',
  '            co = compile(tree, where, "exec", dont_inherit=True)',
  '        except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):',
  '            continue',
  '        buf = io.BytesIO()',
  '        # pytest 9 keys its byte code by the source hash, earlier versions by the source stat',
  '        key = importlib.util.source_hash(data) if hashed else st',
  '        rw._write_pyc_fp(buf, key, co)',
  '        n = put(os.path.join(os.path.dirname(src), "__pycache__", os.path.basename(src)[:-3] + rw.PYC_TAIL), buf.getvalue())',
  '        made += n',
  '        rewritten += n',
  'sys.stdout.write(json.dumps([made, rewritten]))',
].join('\n');

/**
 * A folder's entries, walked without following links. `named: false` for a name that is not
 * UTF-8 (a patch may make one): no path string can name it, so it is left out by the caller.
 */
function entriesOf(dir: string): { name: string; named: boolean; dir: boolean; file: boolean }[] {
  return readdirSync(dir, { withFileTypes: true, encoding: 'buffer' }).map((e) => {
    const name = e.name.toString('utf8');
    return { name, named: Buffer.from(name, 'utf8').equals(e.name), dir: e.isDirectory(), file: e.isFile() };
  });
}

/** The regular `.py` files under `root` (relative, `/`-separated), walking real folders only. */
export function pythonSources(root: string, skip: ReadonlySet<string>): { files: string[] } | { over: string } {
  const files: string[] = [];
  let bytes = 0;
  const walk = (rel: string): string | null => {
    for (const e of entriesOf(join(root, rel))) {
      // A name no path string can give is left out: its files get no byte code (the runs compile them, as before).
      if (!e.named) continue;
      const r = rel === '' ? e.name : posix.join(rel, e.name);
      if (e.dir) {
        if (e.name === '__pycache__' || e.name === '.git') continue;
        const over = walk(r);
        if (over !== null) return over;
      } else if (e.file && e.name.endsWith('.py') && !skip.has(r)) {
        files.push(r);
        bytes += lstatSync(join(root, r)).size;
        if (files.length > MAX_FILES) return `more than ${MAX_FILES} Python files`;
        if (bytes > MAX_BYTES) return `more than ${MAX_BYTES} bytes of Python`;
      }
    }
    return null;
  };
  const over = walk('');
  return over === null ? { files } : { over };
}

/**
 * Compile the base copy's Python files but `skip` with the host's interpreter, which runs
 * nothing of the tree. Only real folders are walked (no link followed), each `__pycache__` is
 * made new and each file written new (O_EXCL, O_NOFOLLOW); when the interpreter is missing,
 * fails or runs out of time, every folder made here goes again: the copy is as it was.
 */
export function precompilePython(
  root: string,
  skip: ReadonlySet<string>,
  opts: { cwd: string | null; noRewrite?: boolean; python?: string; timeoutMs?: number },
): Promise<PrecompileResult> {
  const skipped = (why: string): PrecompileResult => ({ files: 0, rewritten: 0, skipped: why });
  const found = pythonSources(root, skip);
  if ('over' in found) return Promise.resolve(skipped(found.over));
  if (found.files.length === 0) return Promise.resolve(skipped('no Python file'));
  // One new __pycache__ per folder with a source; a folder that has one already (a link too) is left alone.
  const made = new Set<string>();
  const refused = new Set<string>();
  const sources: [string, boolean][] = [];
  for (const rel of found.files) {
    const dir = posix.dirname(rel);
    const cache = join(root, dir === '.' ? '' : dir, '__pycache__');
    if (refused.has(cache)) continue;
    if (!made.has(cache)) {
      try {
        // Not recursive: the parent is a real folder of the copy (walked above); anything already there fails.
        mkdirSync(cache);
        made.add(cache);
      } catch {
        refused.add(cache);
        continue;
      }
    }
    sources.push([rel, opts.noRewrite !== true && PYTEST_REWRITES.test(rel)]);
  }
  const undo = (why: string): PrecompileResult => {
    for (const d of made) rmSync(d, { recursive: true, force: true });
    return skipped(why);
  };
  return new Promise((resolvePromise) => {
    const child = execFile(
      opts.python ?? 'python3',
      ['-I', '-c', SCRIPT, root, opts.cwd ?? ''],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        cwd: '/',
        maxBuffer: 1024 * 1024,
        timeout: opts.timeoutMs ?? 120_000,
        killSignal: 'SIGKILL',
      },
      (err, stdout) => {
        if (err)
          return resolvePromise(undo(`python3 could not compile the tree (${err.message.split('\n')[0] ?? ''})`));
        let counts: unknown;
        try {
          counts = JSON.parse(stdout);
        } catch {
          counts = null;
        }
        if (Array.isArray(counts) && counts.length === 2 && counts.every((n) => Number.isInteger(n) && n >= 0))
          return resolvePromise({ files: counts[0] as number, rewritten: counts[1] as number, skipped: null });
        resolvePromise(undo('python3 gave no count'));
      },
    );
    child.on('error', () => undefined);
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(JSON.stringify(sources));
  });
}

/** pytest's ini files, and conftest.py, which could reach its ini values. */
const REWRITE_CONFIG = /(^|\/)(pytest\.ini|\.pytest\.ini|pyproject\.toml|tox\.ini|setup\.cfg|conftest\.py)$/;

/**
 * Whether the tree's pytest configuration, the command or its environment name
 * `enable_assertion_pass_hook` (pytest then rewrites asserts with calls to that hook, which
 * the byte code made here would not have).
 */
export function configuresRewriting(root: string, commandAndEnv: readonly string[]): boolean {
  if (commandAndEnv.some((a) => a.includes('enable_assertion_pass_hook'))) return true;
  const walk = (rel: string): boolean => {
    for (const e of entriesOf(join(root, rel))) {
      // What cannot be read for sure is taken to name it: a folder no path string can give, or a
      // config file that is a link (pytest reads what it points to).
      if (!e.named) return true;
      const r = rel === '' ? e.name : posix.join(rel, e.name);
      if (e.dir) {
        if (e.name !== '.git' && e.name !== '__pycache__' && walk(r)) return true;
      } else if (!e.file && REWRITE_CONFIG.test(r)) {
        return true;
      } else if (e.file && REWRITE_CONFIG.test(r)) {
        const size = lstatSync(join(root, r)).size;
        // A config too large to read is taken to name it.
        if (size > 64 * 1024 * 1024 || readFileSync(join(root, r), 'latin1').includes('enable_assertion_pass_hook'))
          return true;
      }
    }
    return false;
  };
  return walk('');
}
