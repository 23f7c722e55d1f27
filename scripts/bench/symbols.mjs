// npm run bench symbols: `sealgate symbols` on a large patch against the floor of parsing every
// old and new file once with the same parsers (TypeScript's createSourceFile, tree-sitter-python),
// in the same run. The patch is made from sources already on the machine: JS/TS files from
// node_modules and the Python standard library, edited on every 4th line (a digit bumped, or
// a trailing comment added), committed in a temporary git repository. Both contenders run as
// child processes; wall time is measured around each, peak RSS with /usr/bin/time -f %M.
// Medians of RUNS runs, alternating. Targets: ≤ 1.5× the floor, < 10 s, peak RSS < 1 GiB.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.SYMBOLS_BENCH_RUNS ?? 3);
const TS_FILES = Number(process.env.SYMBOLS_BENCH_TS ?? 260);
const PY_FILES = Number(process.env.SYMBOLS_BENCH_PY ?? 300);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/sealgate.js');
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@example.invalid',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function walk(dir, keep, out = []) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, keep, out);
    else if (e.isFile() && keep(p)) out.push(p);
  }
  return out;
}

function pythonStdlib() {
  const r = spawnSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error('python3 is needed to locate the standard library');
  return r.stdout.trim();
}

const sized = (min, max) => (p) => {
  const s = statSync(p).size;
  return s >= min && s <= max;
};

/** Pick the source files: JS/TS from node_modules (not typescript's own huge bundles), Python from the stdlib. */
function pickSources() {
  const nm = join(ROOT, 'node_modules');
  const ts = walk(
    nm,
    (p) =>
      /\.(m?js|cjs|ts)$/.test(p) &&
      !p.endsWith('.d.ts') &&
      !p.includes('/typescript/') &&
      !p.includes('.min.') &&
      sized(2_000, 200_000)(p),
  ).slice(0, TS_FILES);
  const lib = pythonStdlib();
  const py = walk(
    lib,
    (p) => p.endsWith('.py') && !/\/(test|tests|site-packages|idlelib|lib2to3)\//.test(p) && sized(2_000, 150_000)(p),
  ).slice(0, PY_FILES);
  return [
    ...ts.map((p) => ({ src: p, dest: `ts/${relative(nm, p)}` })),
    ...py.map((p) => ({ src: p, dest: `py/${relative(lib, p)}` })),
  ];
}

/** Every 4th line: bump the first digit, or add a trailing comment. */
function edit(text, python) {
  return text
    .split('\n')
    .map((line, i) => {
      if (i % 4 !== 1 || line.trim() === '') return line;
      const m = /[1-8]/.exec(line);
      if (m) return line.slice(0, m.index) + String(Number(m[0]) + 1) + line.slice(m.index + 1);
      if (python && line.trimEnd().endsWith('\\')) return line;
      return python ? `${line}  # bench` : `${line} /* bench */`;
    })
    .join('\n');
}

export function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-bench-symbols-'));
  const repo = join(dir, 'repo');
  const fresh = join(dir, 'new');
  mkdirSync(repo);
  const files = pickSources();
  for (const f of files) {
    const text = readFileSync(f.src, 'utf8');
    for (const [base, content] of [
      [repo, text],
      [fresh, edit(text, f.dest.endsWith('.py'))],
    ]) {
      mkdirSync(dirname(join(base, f.dest)), { recursive: true });
      writeFileSync(join(base, f.dest), content);
    }
  }
  const git = (...args) => execFileSync('git', args, { cwd: repo, env: GIT_ENV, maxBuffer: 1 << 30 });
  git('init', '-q', '-b', 'main');
  git('config', 'core.autocrlf', 'false');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  for (const f of files) writeFileSync(join(repo, f.dest), readFileSync(join(fresh, f.dest)));
  const patch = git('diff', '--no-color');
  git('checkout', '-q', '--', '.');
  const patchPath = join(dir, 'bench.diff');
  writeFileSync(patchPath, patch);
  const stat = git('apply', '--numstat', patchPath)
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const added = stat.reduce((a, r) => a + Number(r[0]), 0);
  const removed = stat.reduce((a, r) => a + Number(r[1]), 0);
  // A list for the floor: every old and new file path, by language.
  const list = files.map((f) => ({
    lang: f.dest.endsWith('.py') ? 'python' : 'ts',
    path: f.dest,
    old: join(repo, f.dest),
    new: join(fresh, f.dest),
  }));
  writeFileSync(join(dir, 'files.json'), JSON.stringify(list));
  return {
    dir,
    repo,
    patchPath,
    files: stat.length,
    tsFiles: stat.filter((r) => (r[2] ?? '').startsWith('ts/')).length,
    added,
    removed,
    patchBytes: patch.length,
  };
}

/** The floor: load the same parsers, read and parse each old and new file once. */
const FLOOR = `
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const [listPath, root] = process.argv.slice(2);
const list = JSON.parse(readFileSync(listPath, 'utf8'));
const require = createRequire(root + '/package.json');
let ts, py;
if (list.some((f) => f.lang === 'ts')) ts = require('typescript');
if (list.some((f) => f.lang === 'python')) py = await (await import(pathToFileURL(root + '/dist/symbols/treesitter.js').href)).getParser('python');
const kind = (p) => (/\\.(m?js|cjs)$/.test(p) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
let n = 0;
for (const f of list) {
  for (const p of [f.old, f.new]) {
    const text = readFileSync(p, 'utf8');
    if (f.lang === 'ts') n += ts.createSourceFile(f.path, text, ts.ScriptTarget.Latest, false, kind(f.path)).statements.length;
    else { const t = py.parse(text); n += t.rootNode.childCount; t.delete(); }
  }
}
if (n === 0) process.exit(1);
`;

function timed(args, cwd) {
  const useTime = existsSync('/usr/bin/time');
  const cmd = useTime ? '/usr/bin/time' : process.execPath;
  const argv = useTime ? ['-f', 'maxrss_kib=%M cpu_s=%U+%S', process.execPath, ...args] : args;
  const t0 = performance.now();
  const r = spawnSync(cmd, argv, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stdout}\n${r.stderr}`);
  const rss = /maxrss_kib=(\d+) cpu_s=([\d.]+)\+([\d.]+)/.exec(r.stderr);
  return {
    ms,
    rssMiB: rss ? Number(rss[1]) / 1024 : NaN,
    cpuS: rss ? Number(rss[2]) + Number(rss[3]) : NaN,
    stderr: r.stderr,
  };
}

export async function run() {
  if (!existsSync(join(ROOT, 'dist/symbols/treesitter.js')) || !existsSync(join(ROOT, 'dist/bundle/all.cjs')))
    throw new Error('build first: npm run build');
  const t0 = performance.now();
  const s = setup();
  console.log(
    `patch: ${s.files} files (${s.tsFiles} JS/TS, ${s.files - s.tsFiles} Python), +${s.added} -${s.removed} lines (${s.added + s.removed} changed), ${(s.patchBytes / 1024 / 1024).toFixed(1)} MiB; set up in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  try {
    const floorPath = join(s.dir, 'floor.mjs');
    writeFileSync(floorPath, FLOOR);
    const out = join(s.dir, 'changed.json');
    const floor = [];
    const ours = [];
    let summary = '';
    for (let k = 0; k < RUNS; k++) {
      floor.push(timed([floorPath, join(s.dir, 'files.json'), ROOT], s.dir));
      const r = timed([BIN, 'symbols', '--patch', s.patchPath, '--repo', s.repo, '--out', out], s.dir);
      summary = r.stderr.split('\n').find((l) => l.startsWith('sealgate:')) ?? '';
      ours.push(r);
    }
    const changed = JSON.parse(readFileSync(out, 'utf8'));
    const fm = median(floor.map((r) => r.ms));
    const om = median(ours.map((r) => r.ms));
    const orss = Math.max(...ours.map((r) => r.rssMiB));
    const frss = Math.max(...floor.map((r) => r.rssMiB));
    console.log(
      `sealgate says: ${summary.replace(/^sealgate: /, '')}; ${Object.keys(changed.locations).length} locations`,
    );
    console.log(
      `floor (parse every old and new file once): median ${(fm / 1000).toFixed(2)} s over ${RUNS} runs [${floor.map((r) => (r.ms / 1000).toFixed(2)).join(', ')}], peak RSS ${frss.toFixed(0)} MiB`,
    );
    console.log(
      `sealgate symbols:                          median ${(om / 1000).toFixed(2)} s over ${RUNS} runs [${ours.map((r) => (r.ms / 1000).toFixed(2)).join(', ')}], peak RSS ${orss.toFixed(0)} MiB`,
    );
    const fc = median(floor.map((r) => r.cpuS));
    const oc = median(ours.map((r) => r.cpuS));
    console.log(
      `CPU time (user+sys, children included): floor median ${fc.toFixed(2)} s, sealgate median ${oc.toFixed(2)} s, ratio ${(oc / fc).toFixed(2)}x`,
    );
    const ratio = om / fm;
    console.log(
      `ratio ${ratio.toFixed(2)}x (target <= 1.5x): ${ratio <= 1.5 ? 'met' : 'NOT met'}; wall ${(om / 1000).toFixed(2)} s (target < 10 s): ${om < 10_000 ? 'met' : 'NOT met'}; peak RSS ${orss.toFixed(0)} MiB (target < 1024 MiB): ${orss < 1024 ? 'met' : 'NOT met'}`,
    );
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
}
