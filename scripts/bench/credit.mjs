// `sealgate credit` against Stryker on the same generated project, in the same run.
// The project: 10 modules of 2 functions each (20 changed symbols, plain ESM), 200 node:test
// tests in 10 files: 7 modules tested for real, 2 only by tests that cannot notice a change
// ("does not throw", a value compared with itself), 1 not tested at all (its file's tests
// exercise an unchanged helper). The patch changes all 20 functions.
// sealgate: propose, seal, symbols and run first (not timed), then `sealgate credit` cold
// (no cache). Stryker 9 with its tap runner (node:test prints TAP), --mutate set to the same
// changed line ranges, perTest coverage, concurrency = cores. Reported: mutants run, kills,
// wall time (medians over BENCH_RUNS, default 1), the ratio, and whether every symbol in which
// Stryker killed a mutant is credited. Target: ratio <= 0.5, no such symbol left uncredited.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(root, 'bin', 'sealgate.js');
const runs = Number(process.env.BENCH_RUNS ?? 1);
const AUTHOR = 'bench-author-1';
const RUNNER = 'bench-runner-1';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};
function sh(cmd, args, cwd, env = process.env, allowFail = false) {
  const r = spawnSync(cmd, args, { cwd, env: { ...env, ...GIT_ENV }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0 && !allowFail)
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

const KIND = (i) => (i < 7 ? 'strong' : i < 9 ? 'weak' : 'untested');

function baseModule(i) {
  return `export function price${i}(a, b) {\n  return a + b;\n}\n\nexport function rate${i}(x) {\n  return x;\n}\n\nexport function helper${i}(s) {\n  return s.length;\n}\n`;
}
function newModule(i) {
  return [
    `export function price${i}(a, b) {`,
    `  if (a < 0) return 0;`,
    `  const base = a * ${i + 2} + b;`,
    `  return base > 1000 ? 1000 : base;`,
    `}`,
    ``,
    `export function rate${i}(x) {`,
    `  if (x > 10) return x - 10;`,
    `  return x + ${i + 1};`,
    `}`,
    ``,
    `export function helper${i}(s) {`,
    `  return s.length;`,
    `}`,
    ``,
  ].join('\n');
}
function testFile(i) {
  const m = i + 2;
  const lines = [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    `import { price${i}, rate${i}, helper${i} } from '../src/m${i}.mjs';`,
    '',
  ];
  for (let k = 0; k < 10; k++) {
    const a = k * 7 - 3;
    const b = k + 1;
    const x = k * 3;
    if (KIND(i) === 'strong') {
      const p = a < 0 ? 0 : Math.min(1000, a * m + b);
      const r = x > 10 ? x - 10 : x + i + 1;
      lines.push(`test('price${i} case ${k}', () => { assert.equal(price${i}(${a}, ${b}), ${p}); });`);
      lines.push(`test('rate${i} case ${k}', () => { assert.equal(rate${i}(${x}), ${r}); });`);
    } else if (KIND(i) === 'weak') {
      lines.push(`test('price${i} runs ${k}', () => { assert.doesNotThrow(() => price${i}(${a}, ${b})); });`);
      lines.push(`test('rate${i} identity ${k}', () => { const r = rate${i}(${x}); assert.equal(r, r); });`);
    } else {
      lines.push(`test('helper${i} a ${k}', () => { assert.equal(helper${i}('${'x'.repeat(k)}'), ${k}); });`);
      lines.push(`test('helper${i} b ${k}', () => { assert.equal(helper${i}('${'y'.repeat(k + 1)}'), ${k + 1}); });`);
    }
  }
  return lines.join('\n') + '\n';
}

function makeProject(dir) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'test'), { recursive: true });
  mkdirSync(join(dir, 'fixtures'), { recursive: true });
  for (let i = 0; i < 10; i++) writeFileSync(join(dir, 'src', `m${i}.mjs`), baseModule(i));
  writeFileSync(join(dir, 'fixtures', 'seed.json'), '{"seed": 1}\n');
  writeFileSync(
    join(dir, '.gitignore'),
    'node_modules\njunit.xml\nreview/\npatches/\n.stryker-tmp/\nstryker-report.json\nstryker.log\n',
  );
  const testFiles = Array.from({ length: 10 }, (_, i) => `test/m${i}.test.mjs`);
  const command = ['node', '--test', '--test-reporter=junit', '--test-reporter-destination=junit.xml', ...testFiles];
  writeFileSync(
    join(dir, 'sealgate.config.json'),
    JSON.stringify(
      {
        fixtures: ['fixtures/**'],
        clock: 'live',
        locale: 'C.UTF-8',
        test: { command, junit: ['junit.xml'], timeoutSeconds: 600 },
      },
      null,
      2,
    ) + '\n',
  );
  sh('git', ['init', '-q', '-b', 'main'], dir);
  sh('git', ['add', '-A'], dir);
  sh('git', ['commit', '-q', '-m', 'base'], dir);
  for (let i = 0; i < 10; i++) {
    writeFileSync(join(dir, 'src', `m${i}.mjs`), newModule(i));
    writeFileSync(join(dir, 'test', `m${i}.test.mjs`), testFile(i));
  }
  sh('git', ['add', '-A'], dir);
  const diff = sh('git', ['diff', '--cached', 'HEAD'], dir).stdout;
  sh('git', ['reset', '-q'], dir);
  mkdirSync(join(dir, 'patches'));
  writeFileSync(join(dir, 'patches', '001.diff'), diff);
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
}

function childEnv() {
  const env = { ...process.env, SEED: 'bench-seed' };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

function sealgate(dir, args, allowFail = false) {
  return sh(process.execPath, [BIN, ...args], dir, childEnv(), allowFail);
}

function timeCredit(dir) {
  const t0 = process.hrtime.bigint();
  const r = sealgate(dir, ['credit', '--runner-job', RUNNER, '--no-cache', '--json'], true);
  if (process.env.BENCH_VERBOSE) process.stderr.write(r.stderr);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`sealgate credit failed:\n${r.stdout}\n${r.stderr}`);
  const credit = JSON.parse(readFileSync(join(dir, 'review', 'runner', 'credit.json'), 'utf8'));
  // The counts from the --json summary (the last thing credit writes on stderr), not from its prose.
  const at = r.stderr.search(/^\{$(?![\s\S]*^\{$)/m);
  const stats = at < 0 ? null : JSON.parse(r.stderr.slice(at)).stats;
  if (!stats || !Number.isInteger(stats.mutantsRun) || !Number.isInteger(stats.kills))
    throw new Error(`sealgate credit --json printed no summary with counts:\n${r.stderr.slice(-2000)}`);
  return { ms, credit, runs: stats.mutantsRun, kills: stats.kills };
}

function timeStryker(dir, ranges) {
  rmSync(join(dir, 'stryker-report.json'), { force: true });
  const config = {
    testRunner: 'tap',
    tap: { testFiles: ['test/*.test.mjs'] },
    plugins: ['@stryker-mutator/tap-runner'],
    reporters: ['json'],
    jsonReporter: { fileName: 'stryker-report.json' },
    concurrency: availableParallelism(),
    coverageAnalysis: 'perTest',
    tempDirName: '.stryker-tmp',
    cleanTempDir: 'always',
    logLevel: 'warn',
  };
  writeFileSync(join(dir, 'stryker.config.json'), JSON.stringify(config, null, 2) + '\n');
  const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
  const t0 = process.hrtime.bigint();
  sh(process.execPath, [stryker, 'run', '--mutate', ranges.join(',')], dir, childEnv());
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const report = JSON.parse(readFileSync(join(dir, 'stryker-report.json'), 'utf8'));
  const mutants = Object.entries(report.files).flatMap(([file, f]) => f.mutants.map((m) => ({ file, ...m })));
  return { ms, mutants };
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-bench-credit-'));
  try {
    makeProject(dir);
    sealgate(dir, [
      'propose',
      '--author-job',
      AUTHOR,
      '--runner-job',
      RUNNER,
      '--patch',
      'patches/001.diff',
      '--proposal-id',
      'p-bench-1',
    ]);
    sealgate(dir, ['seal', '--runner-job', RUNNER]);
    sealgate(dir, ['symbols', '--patch', 'patches/001.diff']);
    sealgate(dir, ['run', '--runner-job', RUNNER]);
    const changed = JSON.parse(readFileSync(join(dir, 'review', 'runner', 'changed.json'), 'utf8'));
    const results = JSON.parse(readFileSync(join(dir, 'review', 'runner', 'results.json'), 'utf8'));
    const ranges = changed.changed.map((id) => {
      const l = changed.locations[id];
      return `${l.path}:${l.start_line}-${l.end_line}`;
    });
    console.log(
      `project: ${changed.changed.length} changed symbols, ${results.cases.length} tests (${results.cases.filter((c) => c.status === 'passed').length} passed), ${availableParallelism()} cores, ${runs} run(s) each`,
    );

    const ours = [];
    const theirs = [];
    let last;
    let lastStryker;
    for (let k = 0; k < runs; k++) {
      last = timeCredit(dir);
      ours.push(last.ms);
      lastStryker = timeStryker(dir, ranges);
      theirs.push(lastStryker.ms);
    }
    const c = last.credit;
    const bySymbol = (file, line) =>
      changed.changed.find(
        (id) =>
          changed.locations[id].path === file &&
          line >= changed.locations[id].start_line &&
          line <= changed.locations[id].end_line,
      );
    const killedIn = new Set();
    const counts = {};
    for (const m of lastStryker.mutants) {
      counts[m.status] = (counts[m.status] ?? 0) + 1;
      if (m.status === 'Killed') {
        const s = bySymbol(m.file, m.location.start.line);
        if (s) killedIn.add(s);
      }
    }
    const credited = new Set(c.credited);
    const notCredited = [...killedIn].filter((s) => !credited.has(s)).sort();
    const onlyStrykerProbe = notCredited.filter((s) =>
      lastStryker.mutants
        .filter((m) => m.status === 'Killed' && bySymbol(m.file, m.location.start.line) === s)
        .every((m) => m.mutatorName === 'BlockStatement'),
    );
    const mo = median(ours);
    const mt = median(theirs);
    console.log(
      `sealgate credit: ${last.runs} mutant runs (probes, reverts, null and behavioural mutants), ${last.kills} kills by reverts and behavioural mutants, ${c.credited.length}/${changed.changed.length} symbols credited, median ${(mo / 1000).toFixed(1)} s`,
    );
    console.log(
      `stryker:         ${lastStryker.mutants.length} mutants (${Object.entries(counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}), killed in ${killedIn.size} symbols, median ${(mt / 1000).toFixed(1)} s`,
    );
    console.log(
      `ratio sealgate/stryker: ${(mo / mt).toFixed(2)} (target <= 0.5) ${mo / mt <= 0.5 ? 'MET' : 'NOT MET'}`,
    );
    console.log(
      `symbols with a Stryker kill that sealgate does not credit: ${notCredited.length === 0 ? 'none (target MET)' : `${notCredited.join(', ')} (target NOT MET${onlyStrykerProbe.length > 0 ? `; killed only by Stryker's block removal, which returns undefined, a probe here: ${onlyStrykerProbe.join(', ')}` : ''})`}`,
    );
    console.log(`missing here: ${c.missing.map((s) => `${s.split('::')[1]} (${c.evidence[s].reason})`).join('; ')}`);
  } finally {
    if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
    else console.log(`kept ${dir}`);
  }
}
