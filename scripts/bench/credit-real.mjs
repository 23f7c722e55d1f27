// `npm run bench credit-real`: sealgate's credit on real bug-fix commits of real projects
// (TypeScript + vitest, TypeScript + jest, Python + pytest), against a ground truth taken by
// hand. None of the projects' code is here: scripts/bench/credit-real.json names each
// repository, the commits (the patch is `git diff <parent> <commit>`), the test command, the
// sabotage edits (regex replacements in the commit's own test files that weaken its
// regression test) and the expected ground truth. The clones live in $CREDIT_REAL_DIR
// (default /tmp/credit-real); a missing clone is skipped with the commands that fetch it.
//
// Per commit and variant (`fix`: the real commit; `sabotage`: its regression test weakened):
// a fresh repository at the parent with the project's dependencies linked in, a sealgate
// config committed there (the base), the patch in patches/001.diff, then the bench's own
// checks (plain runs of the suite on the patched tree, without NODE_EXTRA_CA_CERTS as
// sealgate's own runs are: one to warm up, then the median of
// CREDIT_REAL_PLAIN_RUNS timed ones, default 3; the production change put
// back, the suite again: do the patch's tests fail?), then `sealgate propose`,
// `sealgate runner` (timed) and `sealgate verify`. Sabotaged and untested commits also run
// under `credit.require: "revert"`.
//
// Env: CREDIT_REAL_DIR (clones), CREDIT_REAL_PLAIN_RUNS (timed plain runs per patch, 1 to 15), CREDIT_REAL_ONLY (comma list of project names or commit id
// prefixes), CREDIT_REAL_VARIANTS (comma list of fix, sabotage, revert: which runs),
// CREDIT_REAL_OUT (the JSON summary's file, default <dir>/credit-real-summary.json),
// BENCH_KEEP=1 keeps the work folders, BENCH_VERBOSE=1 shows sealgate's stderr.
// `node scripts/bench/credit-real.mjs --ground-truth` re-derives the ground truth by hand
// (no sealgate): the commit passes, the production change reverted fails the commit's tests,
// the sabotage passes on both the fix and the revert; compared with the data file.
// CPU: each timed run also reads the machine's busy CPU time (/proc/stat, every process, not
// only the run's own) before and after. The table's "floor" is the runner's CPU seconds over
// (cores x one plain run's wall time): the ratio the same work would give packed perfectly on
// this machine's cores. Where it is close to the measured ratio, the runner is bound by the CPU
// its test runs need, not by waiting; only fewer or cheaper runs lower it. Run nothing else
// beside the bench.
// Exit status: non-zero only on a harness error (bad data file, a git or install failure),
// never on a missed target.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'sealgate.js');
const DATA = fileURLToPath(new URL('./credit-real.json', import.meta.url));
const AUTHOR = 'bench-author-1';
const RUNNER = 'bench-runner-1';
const SEED = '42';
const PLAIN_RUNS = (() => {
  const n = Number(process.env.CREDIT_REAL_PLAIN_RUNS ?? '3');
  return Number.isInteger(n) && n >= 1 && n <= 15 ? n : 3;
})();

// ---------------------------------------------------------------------------------------
// Pure parts (tested in test/bench/credit-real.test.ts)

const HEX40 = /^[0-9a-f]{40}$/;
const SLUG = /^[a-z0-9][a-z0-9._-]*$/;
const REPO = /^[A-Za-z0-9][A-Za-z0-9_-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const REL = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[^\0]+$/;
const RUNNERS = ['vitest', 'jest', 'pytest'];

function isStringArray(x, min = 0) {
  return Array.isArray(x) && x.length >= min && x.every((s) => typeof s === 'string' && s.length > 0);
}
function onlyKeys(obj, allowed, where, problems) {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) problems.push(`${where}: unknown key "${k}"`);
}
function isObject(x) {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Every problem in the data file, as strings; [] when it is valid. */
export function validateData(data) {
  const problems = [];
  if (!isObject(data)) return ['the data file must be a JSON object'];
  onlyKeys(data, ['$comment', 'projects'], 'top level', problems);
  if (!Array.isArray(data.projects) || data.projects.length === 0)
    return [...problems, 'projects: a non-empty array is required'];
  const names = new Set();
  data.projects.forEach((p, i) => {
    const at = `projects[${i}]`;
    if (!isObject(p)) return problems.push(`${at}: must be an object`);
    onlyKeys(p, ['name', 'repo', 'snapshot', 'why', 'runner', 'install', 'test', 'fixtures', 'commits'], at, problems);
    if (typeof p.name !== 'string' || !SLUG.test(p.name)) problems.push(`${at}.name: a lower-case slug is required`);
    else if (names.has(p.name)) problems.push(`${at}.name: "${p.name}" is repeated`);
    else names.add(p.name);
    if (typeof p.repo !== 'string' || !REPO.test(p.repo)) problems.push(`${at}.repo: owner/name is required`);
    if (typeof p.snapshot !== 'string' || !HEX40.test(p.snapshot))
      problems.push(`${at}.snapshot: the 40-hex commit the clone was made at`);
    if (typeof p.why !== 'string' || p.why.length === 0) problems.push(`${at}.why: say why this project`);
    if (!RUNNERS.includes(p.runner)) problems.push(`${at}.runner: one of ${RUNNERS.join(', ')}`);
    if (!Array.isArray(p.install) || !p.install.every((c) => isStringArray(c, 1)))
      problems.push(`${at}.install: a list of commands (argv arrays), maybe empty`);
    if (!isObject(p.test)) problems.push(`${at}.test: {command, junit} is required`);
    else {
      onlyKeys(p.test, ['command', 'junit', 'timeoutSeconds'], `${at}.test`, problems);
      if (!isStringArray(p.test.command, 1)) problems.push(`${at}.test.command: an argv array`);
      if (!isStringArray(p.test.junit, 1) || !p.test.junit.every((j) => REL.test(j)))
        problems.push(`${at}.test.junit: relative JUnit paths`);
      if (
        p.test.timeoutSeconds !== undefined &&
        !(Number.isInteger(p.test.timeoutSeconds) && p.test.timeoutSeconds > 0)
      )
        problems.push(`${at}.test.timeoutSeconds: a positive whole number`);
    }
    if (p.fixtures !== undefined && !isStringArray(p.fixtures, 1))
      problems.push(`${at}.fixtures: a non-empty list of globs`);
    if (!Array.isArray(p.commits) || p.commits.length === 0) return problems.push(`${at}.commits: a non-empty array`);
    const ids = new Set();
    p.commits.forEach((c, j) => {
      const cat = `${at}.commits[${j}]`;
      if (!isObject(c)) return problems.push(`${cat}: must be an object`);
      onlyKeys(c, ['id', 'parent', 'title', 'why', 'tests', 'expect', 'sabotage'], cat, problems);
      if (typeof c.id !== 'string' || !HEX40.test(c.id)) problems.push(`${cat}.id: a 40-hex commit id`);
      else if (ids.has(c.id)) problems.push(`${cat}.id: repeated`);
      else ids.add(c.id);
      if (typeof c.parent !== 'string' || !HEX40.test(c.parent)) problems.push(`${cat}.parent: a 40-hex commit id`);
      if (typeof c.title !== 'string' || c.title.length === 0) problems.push(`${cat}.title: required`);
      if (!Array.isArray(c.tests) || !c.tests.every((t) => typeof t === 'string' && REL.test(t)))
        problems.push(`${cat}.tests: the commit's test files (relative paths), maybe none`);
      if (!isObject(c.expect)) problems.push(`${cat}.expect: {reallyTested, revertFails} is required`);
      else {
        onlyKeys(c.expect, ['reallyTested', 'revertFails', 'note'], `${cat}.expect`, problems);
        if (typeof c.expect.reallyTested !== 'boolean') problems.push(`${cat}.expect.reallyTested: a JSON boolean`);
        if (!isStringArray(c.expect.revertFails))
          problems.push(`${cat}.expect.revertFails: the test ids that fail with the production change reverted`);
        else if (c.expect.reallyTested === true && c.expect.revertFails.length === 0)
          problems.push(`${cat}.expect: a really tested commit has at least one test that fails on the revert`);
        else if (c.expect.reallyTested === false && c.expect.revertFails.length > 0)
          problems.push(`${cat}.expect: an untested commit has no test failing on the revert`);
      }
      if (c.sabotage !== null && c.sabotage !== undefined) {
        if (!isObject(c.sabotage)) problems.push(`${cat}.sabotage: an object or null`);
        else {
          onlyKeys(c.sabotage, ['why', 'edits', 'none'], `${cat}.sabotage`, problems);
          if (typeof c.sabotage.none === 'string') {
            if (c.sabotage.edits !== undefined)
              problems.push(`${cat}.sabotage: "none" (the reason there is none) or "edits", not both`);
          } else {
            if (typeof c.sabotage.why !== 'string' || c.sabotage.why.length === 0)
              problems.push(`${cat}.sabotage.why: say what the sabotage weakens`);
            if (!Array.isArray(c.sabotage.edits) || c.sabotage.edits.length === 0)
              problems.push(`${cat}.sabotage.edits: a non-empty list`);
            else
              c.sabotage.edits.forEach((e, k) =>
                validateEdit(e, `${cat}.sabotage.edits[${k}]`, Array.isArray(c.tests) ? c.tests : [], problems),
              );
          }
        }
      }
    });
  });
  return problems;
}

function validateEdit(e, at, tests, problems) {
  if (!isObject(e)) return problems.push(`${at}: must be an object`);
  onlyKeys(e, ['file', 'within', 'find', 'flags', 'replace', 'count'], at, problems);
  if (typeof e.file !== 'string' || !tests.includes(e.file))
    problems.push(`${at}.file: must be one of the commit's test files`);
  if (e.within !== undefined && (typeof e.within !== 'string' || e.within.length === 0))
    problems.push(`${at}.within: a marker string`);
  if (typeof e.find !== 'string' || e.find.length === 0) problems.push(`${at}.find: a regular expression source`);
  else {
    try {
      new RegExp(e.find, e.flags ?? 'g');
    } catch (err) {
      problems.push(`${at}.find: ${err.message}`);
    }
  }
  if (e.flags !== undefined && (typeof e.flags !== 'string' || !/^[gimsu]*$/.test(e.flags) || !e.flags.includes('g')))
    problems.push(`${at}.flags: regex flags including g`);
  if (typeof e.replace !== 'string') problems.push(`${at}.replace: a string`);
  if (!Number.isInteger(e.count) || e.count < 1)
    problems.push(`${at}.count: how many matches the edit expects (a whole number >= 1)`);
}

/**
 * The block of `text` that starts at the line holding `marker` and ends before the next line
 * that starts in column 0 (a Python top-level def or decorator, a JS top-level statement).
 */
export function blockRange(text, marker) {
  const at = text.indexOf(marker);
  if (at < 0) return null;
  const start = text.lastIndexOf('\n', at) + 1;
  const lineEnd = text.indexOf('\n', at);
  if (lineEnd < 0) return { start, end: text.length };
  const next = /\n(?=[^\s)\]}])/g;
  next.lastIndex = lineEnd;
  const m = next.exec(text);
  return { start, end: m ? m.index + 1 : text.length };
}

/** Applies one file's edits; each must match exactly `count` times (the reviewed recipe). */
export function applyEdits(text, edits) {
  let out = text;
  const problems = [];
  for (const e of edits) {
    const range = e.within === undefined ? { start: 0, end: out.length } : blockRange(out, e.within);
    if (range === null) {
      problems.push(`${e.file}: marker ${JSON.stringify(e.within)} not found`);
      continue;
    }
    const re = new RegExp(e.find, e.flags ?? 'g');
    const part = out.slice(range.start, range.end);
    const n = [...part.matchAll(re)].length;
    if (n !== e.count) {
      problems.push(`${e.file}: /${e.find}/ matched ${n} times, the recipe expects ${e.count}`);
      continue;
    }
    out = out.slice(0, range.start) + part.replace(re, e.replace) + out.slice(range.end);
  }
  return { text: out, problems };
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function decode(s) {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e) =>
    e[0] === '#'
      ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
      : ENTITIES[e.toLowerCase()],
  );
}
function attr(attrs, name) {
  const m = new RegExp(`\\b${name}="([^"]*)"`).exec(attrs);
  return m ? decode(m[1]) : undefined;
}

/** The test cases of a JUnit report: ids (`classname::name`), and which failed or errored. */
export function junitCases(xml) {
  const cases = [];
  const re = /<testcase\b((?:[^>"]|"[^"]*")*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of xml.matchAll(re)) {
    const name = attr(m[1], 'name') ?? '';
    const cls = attr(m[1], 'classname') ?? attr(m[1], 'file') ?? '';
    const body = m[3] ?? '';
    const status = /<(failure|error)\b/.test(body) ? 'failed' : /<skipped\b/.test(body) ? 'skipped' : 'passed';
    cases.push({ id: cls ? `${cls}::${name}` : name, status });
  }
  return cases;
}

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The runner's CPU seconds over (cores x one plain run's wall time): its ratio packed perfectly on this machine; null when unmeasured. */
export function floorRatio(r) {
  return r.runnerCpuSeconds != null && r.cores > 0 && r.plainSeconds > 0
    ? r.runnerCpuSeconds / (r.cores * r.plainSeconds)
    : null;
}

/** One markdown table: a row per commit and variant. */
export function renderTable(rows) {
  const head = [
    'project',
    'commit',
    'variant',
    'policy',
    'tested (truth)',
    'bench revert check',
    'verdict',
    'symbols: credit / revert',
    'mutants',
    'runner s',
    'plain s',
    'runner/plain',
    'runner CPU s',
    'floor',
    'target',
  ];
  const lines = [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`];
  for (const r of rows) {
    const syms =
      (r.symbols ?? []).map((s) => `${s.symbol}: ${s.credit}${s.revert ? ` / ${s.revert}` : ''}`).join('; ') || '-';
    const ratio = r.runnerSeconds != null && r.plainSeconds ? (r.runnerSeconds / r.plainSeconds).toFixed(1) : '-';
    lines.push(
      `| ${[r.project, r.commit.slice(0, 7), r.variant, r.policy, r.truth, r.benchRevert ?? '-', r.verdict ?? '-', syms, r.mutants ?? '-', r.runnerSeconds?.toFixed(1) ?? '-', r.plainSeconds?.toFixed(1) ?? '-', ratio, r.runnerCpuSeconds?.toFixed(1) ?? '-', floorRatio(r)?.toFixed(1) ?? '-', r.target ?? '-'].map(cell).join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** What each row should give, from the ground truth (null: no target for this row). */
export function rowTarget(row) {
  if (row.variant === 'fix' && row.truth === 'tested' && row.policy === 'default')
    return { want: 'ALLOW', met: row.verdict === 'ALLOW' };
  if (row.truth !== 'tested' || row.variant === 'sabotage') {
    if (row.policy === 'revert')
      return { want: 'rejected', met: row.verdict !== undefined && row.verdict !== 'ALLOW' && !row.refused };
    return {
      want: 'flagged',
      met:
        row.verdict !== 'ALLOW' || (row.symbols ?? []).some((s) => s.revert === 'survived' || s.revert === 'invalid'),
    };
  }
  return null;
}

/** The three targets over all rows. */
export function summarise(rows) {
  const allow = rows.filter((r) => r.variant === 'fix' && r.truth === 'tested' && r.policy === 'default');
  const revert = rows.filter((r) => r.policy === 'revert');
  const flagged = rows.filter((r) => r.policy === 'default' && (r.variant === 'sabotage' || r.truth !== 'tested'));
  const ratios = rows
    .filter((r) => r.runnerSeconds != null && r.plainSeconds > 0 && !r.refused)
    .map((r) => r.runnerSeconds / r.plainSeconds);
  const med = median(ratios);
  const worst = ratios.length ? Math.max(...ratios) : NaN;
  const floors = rows
    .filter((r) => r.runnerSeconds != null && !r.refused)
    .map(floorRatio)
    .filter((x) => x !== null);
  const round = (x) => (Number.isNaN(x) ? null : Number(x.toFixed(2)));
  return {
    reallyTestedAllow: {
      met: allow.length > 0 && allow.every((r) => r.verdict === 'ALLOW'),
      allowed: allow.filter((r) => r.verdict === 'ALLOW').length,
      of: allow.length,
    },
    sabotagedRejectedUnderRevert: {
      met: revert.length > 0 && revert.every((r) => rowTarget(r)?.met),
      rejected: revert.filter((r) => rowTarget(r)?.met).length,
      of: revert.length,
      refused: revert.filter((r) => r.refused).length,
    },
    sabotagedFlaggedUnderDefault: {
      met: flagged.length > 0 && flagged.every((r) => rowTarget(r)?.met),
      flagged: flagged.filter((r) => rowTarget(r)?.met).length,
      of: flagged.length,
    },
    speed: {
      met: ratios.length > 0 && med <= 3 && worst <= 5,
      median: round(med),
      worst: round(worst),
      runs: ratios.length,
    },
    // Measured beside it, no target: the same work packed perfectly (floorRatio).
    floor: {
      median: round(median(floors)),
      worst: floors.length ? round(Math.max(...floors)) : null,
      runs: floors.length,
    },
  };
}

/** The shell lines that make the clones the data file names. */
export function fetchHelp(project, dir) {
  return [
    `# ${project.name}: github.com/${project.repo} at ${project.snapshot} (or newer; it must contain the commits below)`,
    `git clone https://github.com/${project.repo} ${join(dir, project.name)}`,
    `git -C ${join(dir, project.name)} checkout -q ${project.snapshot}`,
    ...project.install.map((c) => `(cd ${join(dir, project.name)} && ${c.join(' ')})`),
    `# commits: ${project.commits.map((c) => `${c.id} (parent ${c.parent})`).join(', ')}`,
  ].join('\n');
}

/** Per-symbol credit and revert outcome from credit.json's evidence. */
export function symbolOutcomes(credit, changed) {
  const names = changed ?? credit?.changed ?? [];
  return names.map((symbol) => {
    const ev = credit?.evidence?.[symbol];
    const credited = credit?.credited?.includes(symbol);
    let credit_ = credited ? 'credited' : credit?.missing?.includes(symbol) ? 'missing' : 'n/a';
    if (ev?.status === 'credited-by-probe') credit_ = 'credited-by-probe';
    let revert;
    if (ev && typeof ev.revert === 'string') revert = ev.revert;
    else if (ev && isObject(ev.revert)) revert = ev.revert.outcome ?? ev.revert.status;
    else {
      const m = (ev?.mutants ?? []).find((x) => x.kind === 'revert' || /revert/i.test(x.id ?? ''));
      if (m) revert = m.outcome;
    }
    return { symbol, credit: credit_, revert: revert ?? null, mutants: ev?.mutants?.length ?? 0, reason: ev?.reason };
  });
}

// ---------------------------------------------------------------------------------------
// I/O

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

function baseEnv(home) {
  const env = {
    ...process.env,
    ...GIT_ENV,
    HOME: home,
    XDG_CACHE_HOME: join(home, 'cache'),
    SEED,
    JEST_JUNIT_ADD_FILE_ATTRIBUTE: 'true',
    CI: '1',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

class HarnessError extends Error {}

function sh(cmd, args, cwd, env, allowFail = false) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (r.error) throw new HarnessError(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  if (r.status !== 0 && !allowFail)
    throw new HarnessError(
      `${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`,
    );
  return r;
}
const git = (cwd, env, ...args) => sh('git', args, cwd, env).stdout;

/** Runs the project's test command once; its JUnit cases, exit status and wall time. */
/**
 * The plain run's environment: the caller's, without NODE_EXTRA_CA_CERTS. sealgate's runs never
 * pass it to a test (an allowlist: src/runner/env.ts), and it costs every Node process of the
 * suite about 80 ms here (the main one and each worker): left in, it would pad the plain run
 * and flatter the ratio.
 */
export function plainEnv(env) {
  const out = { ...env };
  delete out.NODE_EXTRA_CA_CERTS;
  return out;
}

/** The machine's busy CPU seconds so far (user, nice, system, irq, softirq over every core), or null off Linux. */
export function busyCpuSeconds(stat = () => readFileSync('/proc/stat', 'utf8')) {
  let text;
  try {
    text = stat();
  } catch {
    return null;
  }
  const m = /^cpu\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/.exec(text);
  if (!m) return null;
  const f = m.slice(1).map(Number);
  // USER_HZ is 100 on every Linux this runs on (sysconf(_SC_CLK_TCK)).
  return (f[0] + f[1] + f[2] + f[5] + f[6]) / 100;
}

/** CPU seconds between two busyCpuSeconds readings, or null when either is missing. */
const cpuSince = (before, after) => (before === null || after === null ? null : after - before);

function runSuite(project, cwd, env) {
  for (const j of project.test.junit) rmSync(join(cwd, j), { force: true });
  const c0 = busyCpuSeconds();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(project.test.command[0], project.test.command.slice(1), {
    cwd,
    env: plainEnv(env),
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    timeout: (project.test.timeoutSeconds ?? 600) * 1000,
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpuSeconds = cpuSince(c0, busyCpuSeconds());
  if (r.error && r.error.code !== 'ETIMEDOUT')
    throw new HarnessError(`${project.test.command.join(' ')}: ${r.error.message}`);
  const cases = [];
  for (const j of project.test.junit)
    if (existsSync(join(cwd, j))) cases.push(...junitCases(readFileSync(join(cwd, j), 'utf8')));
  for (const j of project.test.junit) rmSync(join(cwd, j), { force: true });
  return {
    status: r.status,
    seconds,
    cpuSeconds,
    cases,
    failed: cases.filter((c) => c.status === 'failed').map((c) => c.id),
    tail: (r.stdout + r.stderr).slice(-1500),
  };
}

function loadData() {
  const data = JSON.parse(readFileSync(DATA, 'utf8'));
  const problems = validateData(data);
  if (problems.length > 0)
    throw new HarnessError(`scripts/bench/credit-real.json is not valid:\n  ${problems.join('\n  ')}`);
  return data;
}

/** The clone, checked: present, holding every commit, dependencies installed. */
function prepareClone(project, dir, env) {
  const clone = join(dir, project.name);
  if (!existsSync(join(clone, '.git'))) return { missing: `no clone at ${clone}` };
  for (const c of project.commits) {
    for (const id of [c.id, c.parent]) {
      const r = sh('git', ['cat-file', '-e', `${id}^{commit}`], clone, env, true);
      if (r.status !== 0) return { missing: `${clone} lacks commit ${id}` };
    }
  }
  if (project.install.length > 0 && !existsSync(join(clone, 'node_modules'))) {
    for (const c of project.install) {
      process.stderr.write(`credit-real: ${project.name}: ${c.join(' ')}\n`);
      sh(c[0], c.slice(1), clone, env);
    }
  }
  return { clone };
}

function changedFiles(clone, env, c) {
  return git(clone, env, 'diff', '--name-only', '--no-renames', c.parent, c.id).split('\n').filter(Boolean);
}

/** The sabotaged copies of the commit's test files, or problems. */
function sabotagedFiles(clone, env, c) {
  const byFile = new Map();
  for (const e of c.sabotage.edits) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  const files = new Map();
  const problems = [];
  for (const [file, edits] of byFile) {
    const r = applyEdits(git(clone, env, 'show', `${c.id}:${file}`), edits);
    problems.push(...r.problems);
    files.set(file, r.text);
  }
  return { files, problems };
}

const short = (ids, n = 3) =>
  ids.length <= n ? ids.join(', ') : `${ids.slice(0, n).join(', ')} and ${ids.length - n} more`;

/** --ground-truth: the commit passes; the revert fails its tests; the sabotage passes on both. */
function groundTruth(project, clone, c, work, env) {
  const repo = join(work, `${project.name}-${c.id.slice(0, 7)}-truth`);
  sh('git', ['clone', '-q', '--no-checkout', clone, repo], work, env);
  git(repo, env, 'checkout', '-q', '--detach', c.id);
  if (existsSync(join(clone, 'node_modules')))
    symlinkSync(join(clone, 'node_modules'), join(repo, 'node_modules'), 'dir');
  const files = changedFiles(clone, env, c);
  const prod = files.filter((f) => !c.tests.includes(f));
  const out = { commit: c.id, production: prod, tests: c.tests };
  const fix = runSuite(project, repo, env);
  out.fix = { status: fix.status, failed: fix.failed, cases: fix.cases.length };
  const present = prod.filter((f) => sh('git', ['cat-file', '-e', `${c.parent}:${f}`], repo, env, true).status === 0);
  if (present.length > 0) git(repo, env, 'checkout', c.parent, '--', ...present);
  for (const f of prod.filter((f) => !present.includes(f))) rmSync(join(repo, f), { force: true });
  const rev = runSuite(project, repo, env);
  out.revert = { status: rev.status, failed: rev.failed, cases: rev.cases.length };
  if (rev.status !== 0 && rev.failed.length === 0) out.revert.tail = rev.tail;
  if (c.sabotage?.edits) {
    const s = sabotagedFiles(clone, env, c);
    out.sabotageProblems = s.problems;
    for (const [f, text] of s.files) writeFileSync(join(repo, f), text);
    const sr = runSuite(project, repo, env);
    out.sabotageOnRevert = { status: sr.status, failed: sr.failed };
    if (sr.status !== 0 && sr.failed.length === 0) out.sabotageOnRevert.tail = sr.tail;
    git(
      repo,
      env,
      'checkout',
      c.id,
      '--',
      ...prod.filter((f) => sh('git', ['cat-file', '-e', `${c.id}:${f}`], repo, env, true).status === 0),
    );
    const sf = runSuite(project, repo, env);
    out.sabotageOnFix = { status: sf.status, failed: sf.failed };
  }
  const want = c.expect;
  out.agrees = {
    fixPasses: fix.status === 0 && fix.failed.length === 0,
    reallyTested: want.reallyTested === (rev.status !== 0),
    revertFails: JSON.stringify([...rev.failed].sort()) === JSON.stringify([...want.revertFails].sort()),
    ...(out.sabotageOnRevert
      ? {
          sabotageHides:
            out.sabotageOnRevert.status === 0 && out.sabotageOnFix.status === 0 && out.sabotageProblems.length === 0,
        }
      : {}),
  };
  return out;
}

/** The work repository for one variant: parent + config committed (the base), the patch in patches/. */
function setUp(project, clone, c, variant, policy, work, env) {
  const repo = join(work, `${project.name}-${c.id.slice(0, 7)}-${variant}-${policy}`);
  sh('git', ['clone', '-q', '--no-checkout', clone, repo], work, env);
  git(repo, env, 'checkout', '-q', '-b', 'bench', c.parent);
  appendFileSync(
    join(repo, '.git', 'info', 'exclude'),
    '\n/node_modules\n/review/\n/patches/\n/junit.xml\n/coverage/\n',
  );
  if (existsSync(join(clone, 'node_modules')))
    symlinkSync(join(clone, 'node_modules'), join(repo, 'node_modules'), 'dir');
  // sealgate init first (what it would have written; reported), then the bench's config from
  // the data file, so that every session's runs use the same commands.
  const init = sh(process.execPath, [BIN, 'init', '--repo', repo], repo, env, true);
  let initCommand = null;
  if (init.status === 0 && existsSync(join(repo, 'sealgate.config.json'))) {
    try {
      initCommand = JSON.parse(readFileSync(join(repo, 'sealgate.config.json'), 'utf8')).test?.command ?? null;
    } catch {
      initCommand = null;
    }
  }
  rmSync(join(repo, '.github', 'workflows', 'sealgate.yml'), { force: true });
  const config = {
    // A project without fixtures says so: `[]` (the seal refuses a config that names none).
    fixtures: project.fixtures ?? [],
    clock: 'frozen',
    locale: 'C.UTF-8',
    test: {
      command: project.test.command,
      junit: project.test.junit,
      timeoutSeconds: project.test.timeoutSeconds ?? 600,
    },
    credit: { mutantBudget: 8, ...(policy === 'revert' ? { require: 'revert' } : {}) },
  };
  writeFileSync(join(repo, 'sealgate.config.json'), JSON.stringify(config, null, 2) + '\n');
  git(repo, env, 'add', '-A', '--', 'sealgate.config.json');
  git(repo, env, 'commit', '-q', '-m', 'bench: sealgate config');
  const base = git(repo, env, 'rev-parse', 'HEAD').trim();
  // the patch: the commit's files (the sabotage edits on its tests), against the base
  const files = changedFiles(clone, env, c);
  const atCommit = files.filter((f) => sh('git', ['cat-file', '-e', `${c.id}:${f}`], repo, env, true).status === 0);
  if (atCommit.length > 0) git(repo, env, 'checkout', c.id, '--', ...atCommit);
  for (const f of files.filter((f) => !atCommit.includes(f))) git(repo, env, 'rm', '-q', '--', f);
  if (variant === 'sabotage') {
    const s = sabotagedFiles(clone, env, c);
    if (s.problems.length > 0)
      throw new HarnessError(`${project.name} ${c.id}: sabotage recipe does not apply:\n  ${s.problems.join('\n  ')}`);
    for (const [f, text] of s.files) writeFileSync(join(repo, f), text);
  }
  git(repo, env, 'add', '-A', '--', ...files);
  const patch = git(repo, env, 'diff', '--cached', '--binary', '--no-renames', 'HEAD');
  git(repo, env, 'reset', '-q', '--hard', 'HEAD');
  mkdirSync(join(repo, 'patches'));
  writeFileSync(join(repo, 'patches', '001.diff'), patch);
  return { repo, base, files, prod: files.filter((f) => !c.tests.includes(f)), initCommand };
}

function sealgate(repo, env, args) {
  const c0 = busyCpuSeconds();
  const t0 = process.hrtime.bigint();
  const r = sh(process.execPath, [BIN, ...args], repo, env, true);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpuSeconds = cpuSince(c0, busyCpuSeconds());
  if (process.env.BENCH_VERBOSE) process.stderr.write(r.stderr);
  const lines = r.stdout.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  const code = /^(ALLOW|E_[A-Z_]+)$/.test(last) ? last : r.status === 0 ? 'ok' : `exit ${r.status}`;
  return { ...r, code, seconds, cpuSeconds };
}

const firstLines = (s, n = 4) =>
  s
    .trim()
    .split('\n')
    .map((l) => l.replace(/^[|\s]+/, ''))
    .filter(Boolean)
    .slice(0, n)
    .join(' / ');

/** The bench's own checks, per patch. */
const CHECKS = new Map();

/** One variant, end to end. */
function runVariant(project, clone, c, variant, policy, work, env, treeMode) {
  const truth = c.expect.reallyTested ? 'tested' : 'untested';
  const row = { project: project.name, commit: c.id, variant, policy, truth, problems: [] };
  const s = setUp(project, clone, c, variant, policy, work, env);
  row.initCommand = s.initCommand;
  // the bench's own checks on the patched work tree (once per patch: the policy does not change them)
  const key = `${project.name} ${c.id} ${variant}`;
  if (!CHECKS.has(key)) {
    git(s.repo, env, 'apply', '--index', 'patches/001.diff');
    const check = { problems: [] };
    const warm = runSuite(project, s.repo, env);
    if (warm.status !== 0)
      check.problems.push(
        `the patched suite fails on a plain run (exit ${warm.status}): ${short(warm.failed)} ${warm.failed.length ? '' : warm.tail.slice(-300)}`,
      );
    // The median of a few timed runs: one plain run of a small suite varies by a third from run to run here.
    const timed = Array.from({ length: PLAIN_RUNS }, () => runSuite(project, s.repo, env)).sort(
      (a, b) => a.seconds - b.seconds,
    );
    const mid = timed[Math.floor(timed.length / 2)];
    check.plainSeconds = mid.seconds;
    check.plainCpuSeconds = mid.cpuSeconds;
    check.plainRuns = timed.map((t) => t.seconds);
    const present = s.prod.filter((f) => sh('git', ['cat-file', '-e', `HEAD:${f}`], s.repo, env, true).status === 0);
    if (present.length > 0) git(s.repo, env, 'checkout', 'HEAD', '--', ...present);
    for (const f of s.prod.filter((f) => !present.includes(f))) rmSync(join(s.repo, f), { force: true });
    const rev = runSuite(project, s.repo, env);
    check.benchRevert =
      rev.status !== 0
        ? `killed (${rev.failed.length ? short(rev.failed, 2) : `exit ${rev.status}, no case failed`})`
        : 'survived';
    check.benchRevertFailed = rev.failed;
    git(s.repo, env, 'reset', '-q', '--hard', 'HEAD');
    CHECKS.set(key, check);
  }
  const check = CHECKS.get(key);
  row.problems.push(...check.problems);
  row.plainSeconds = check.plainSeconds;
  row.plainCpuSeconds = check.plainCpuSeconds;
  row.plainRuns = check.plainRuns;
  row.benchRevert = check.benchRevert;
  row.benchRevertFailed = check.benchRevertFailed;
  // sealgate: propose (with --base when the runner builds its own tree), runner, verify
  const proposeArgs = [
    'propose',
    '--author-job',
    AUTHOR,
    '--runner-job',
    RUNNER,
    '--patch',
    'patches/001.diff',
    '--proposal-id',
    `p-bench-${c.id.slice(0, 7)}-${variant}-${policy}`,
  ];
  if (treeMode) proposeArgs.push('--base', s.base);
  const p = sealgate(s.repo, env, proposeArgs);
  row.steps = { propose: p.code };
  if (p.status !== 0) {
    row.verdict = p.code;
    row.refused = `propose: ${firstLines(p.stderr)}`;
    return finish(row, s, work);
  }
  if (!treeMode) git(s.repo, env, 'apply', 'patches/001.diff');
  const r = sealgate(s.repo, env, ['runner', '--runner-job', RUNNER, '--seed', SEED, '--verbose']);
  row.steps.runner = r.code;
  row.runnerSeconds = r.seconds;
  row.runnerCpuSeconds = r.cpuSeconds;
  row.cores = availableParallelism();
  row.runnerStderr = r.stderr.slice(-4000);
  if (r.status === 3 || r.status === 2) row.problems.push(`runner exit ${r.status}: ${firstLines(r.stderr, 6)}`);
  if (!['ALLOW', 'E_CREDIT_MISSING'].includes(r.code) && !/credit\.require/.test(r.stderr))
    row.problems.push(
      `runner stopped with ${r.code}: ${firstLines(
        r.stderr
          .split('\n')
          .filter((l) => l.includes(`sealgate: ${r.code}:`))
          .join('\n'),
        1,
      )}`,
    );
  if (
    policy === 'revert' &&
    /credit\.require/.test(r.stderr) &&
    !existsSync(join(s.repo, 'review', 'runner', 'credit.json'))
  )
    row.refused = `runner: ${firstLines(
      r.stderr
        .split('\n')
        .filter((l) => /credit\.require/.test(l))
        .join('\n'),
      1,
    )}`;
  const v = sealgate(s.repo, env, ['verify', '--now', new Date().toISOString()]);
  row.verdict = v.code;
  row.steps.verify = v.code;
  const creditPath = join(s.repo, 'review', 'runner', 'credit.json');
  const changedPath = join(s.repo, 'review', 'runner', 'changed.json');
  if (existsSync(creditPath)) {
    const credit = JSON.parse(readFileSync(creditPath, 'utf8'));
    const changed = existsSync(changedPath) ? JSON.parse(readFileSync(changedPath, 'utf8')).changed : undefined;
    row.symbols = symbolOutcomes(
      credit,
      Array.isArray(changed)
        ? changed.map((x) => (typeof x === 'string' ? x : (x.symbol ?? x.id ?? JSON.stringify(x))))
        : undefined,
    );
    row.mutants = row.symbols.reduce((n, x) => n + x.mutants, 0);
  }
  return finish(row, s, work);
}

function finish(row, s, work) {
  const t = rowTarget(row);
  row.target = t ? `${t.want}: ${t.met ? 'met' : 'NOT met'}` : '-';
  if (!process.env.BENCH_KEEP) rmSync(s.repo, { recursive: true, force: true });
  else row.repo = s.repo;
  void work;
  return row;
}

function selected(project, c) {
  const only = (process.env.CREDIT_REAL_ONLY ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  return only.length === 0 || only.some((o) => o === project.name || c.id.startsWith(o));
}

export async function run(argv = []) {
  const data = loadData();
  const dir = resolve(process.env.CREDIT_REAL_DIR ?? argv.find((a) => !a.startsWith('--')) ?? '/tmp/credit-real');
  const work = mkdtempSync(join(tmpdir(), 'sealgate-credit-real-'));
  const env = baseEnv(work);
  const ready = [];
  for (const project of data.projects) {
    const c = prepareClone(project, dir, env);
    if (c.missing) {
      console.log(`credit-real: skipping ${project.name} (${c.missing}). To fetch it:\n${fetchHelp(project, dir)}\n`);
      continue;
    }
    ready.push({ project, clone: c.clone });
  }
  if (argv.includes('--ground-truth')) {
    const out = [];
    for (const { project, clone } of ready) {
      for (const c of project.commits.filter((x) => selected(project, x))) {
        const g = groundTruth(project, clone, c, work, env);
        out.push({ project: project.name, ...g });
        console.log(JSON.stringify({ project: project.name, ...g }));
      }
    }
    if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
    const bad = out.filter((g) => Object.values(g.agrees).some((x) => !x));
    console.log(
      bad.length === 0
        ? 'ground truth: every commit agrees with the data file'
        : `ground truth: ${bad.length} commit(s) disagree with the data file: ${bad.map((g) => `${g.project} ${g.commit.slice(0, 7)}`).join(', ')}`,
    );
    return out;
  }
  const help = sh(process.execPath, [BIN, 'propose', '--help'], work, env, true);
  const treeMode = /--base\b/.test(help.stdout + help.stderr);
  const variants = (process.env.CREDIT_REAL_VARIANTS ?? 'fix,sabotage,revert').split(',').map((x) => x.trim());
  console.log(
    `credit-real: clones in ${dir}; runner ${treeMode ? 'builds its own tree (propose --base)' : 'runs on the work tree (patch applied with git apply)'}; timings are whatever this machine gives (note the load)`,
  );
  // The plan: every fix first, then the sabotaged and untested ones, then the "revert" policy.
  const plan = [];
  for (const { project, clone } of ready) {
    for (const c of project.commits.filter((x) => selected(project, x))) {
      if (variants.includes('fix')) plan.push([project, clone, c, 'fix', 'default']);
    }
  }
  for (const { project, clone } of ready) {
    for (const c of project.commits.filter((x) => selected(project, x))) {
      const sab = c.sabotage?.edits ? 'sabotage' : null;
      if (variants.includes('sabotage') && sab) plan.push([project, clone, c, sab, 'default']);
      if (variants.includes('revert')) {
        if (sab) plan.push([project, clone, c, sab, 'revert']);
        if (!c.expect.reallyTested) plan.push([project, clone, c, 'fix', 'revert']);
      }
    }
  }
  const outFile = process.env.CREDIT_REAL_OUT ?? join(dir, 'credit-real-summary.json');
  mkdirSync(dirname(outFile), { recursive: true });
  const rows = [];
  for (const [project, clone, c, variant, policy] of plan) {
    process.stderr.write(`credit-real: ${project.name} ${c.id.slice(0, 7)} ${variant} (${policy}) ...\n`);
    const row = runVariant(project, clone, c, variant, policy, work, env, treeMode);
    rows.push(row);
    process.stderr.write(
      `credit-real:   ${row.verdict} in ${row.runnerSeconds?.toFixed(1) ?? '-'} s (plain ${row.plainSeconds?.toFixed(1)} s); bench revert ${row.benchRevert}; ${row.target}${row.problems.length ? `; problems: ${row.problems.join('; ')}` : ''}\n`,
    );
    writeFileSync(outFile, JSON.stringify({ partial: true, rows }, null, 2) + '\n');
  }
  const summary = summarise(rows);
  console.log('\n' + renderTable(rows) + '\n');
  const say = (label, t, detail) => console.log(`${label}: ${detail} (target ${t.met ? 'MET' : 'NOT MET'})`);
  say(
    'every really tested commit ALLOW',
    summary.reallyTestedAllow,
    `${summary.reallyTestedAllow.allowed}/${summary.reallyTestedAllow.of}`,
  );
  say(
    'every sabotaged or untested commit rejected under credit.require "revert"',
    summary.sabotagedRejectedUnderRevert,
    `${summary.sabotagedRejectedUnderRevert.rejected}/${summary.sabotagedRejectedUnderRevert.of}${summary.sabotagedRejectedUnderRevert.refused ? `, ${summary.sabotagedRejectedUnderRevert.refused} config(s) refused by this sealgate` : ''}`,
  );
  say(
    'every sabotaged or untested commit flagged under the default',
    summary.sabotagedFlaggedUnderDefault,
    `${summary.sabotagedFlaggedUnderDefault.flagged}/${summary.sabotagedFlaggedUnderDefault.of}`,
  );
  say(
    'runner / plain at most 3x median and 5x worst',
    summary.speed,
    `median ${summary.speed.median}x, worst ${summary.speed.worst}x over ${summary.speed.runs} runs`,
  );
  if (summary.floor.runs > 0)
    console.log(
      `floor (the runner's CPU over cores x plain wall, no target): median ${summary.floor.median}x, worst ${summary.floor.worst}x over ${summary.floor.runs} runs`,
    );
  const json = {
    treeMode,
    rows: rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'runnerStderr'))),
    summary,
  };
  writeFileSync(outFile, JSON.stringify({ ...json, rows }, null, 2) + '\n');
  console.log(`\nJSON summary (with each runner's stderr) in ${outFile}`);
  console.log(JSON.stringify(json));
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
  return json;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  run(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`credit-real: ${err instanceof HarnessError ? err.message : err.stack}\n`);
    process.exitCode = 2;
  });
}
