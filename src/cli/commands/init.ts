import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CONFIG_NAMES, readConfig } from '../../config/read.js';
import { ConfigSchema } from '../../config/schema.js';
import { checkSchema } from '../../core/document.js';
import { SealgateError, inputInvalid, usageError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/io.js';
import { toJsonText } from '../../core/json.js';
import { PROVABLE, STACKS, detectStack, readRepoScan, toDetectedConfig, type Detection } from '../../init/detect.js';
import { CONFIG_PATH, WORKFLOW_PATH, WORKFLOW_YML } from '../../init/templates.js';
import { parseCommandArgs } from '../args.js';
import type { Command, CommandContext } from '../context.js';

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const SHOWN_FAILURES = 5;

/**
 * pytest stops at once (exit 4) when the configuration's addopts name an option of a plugin
 * that is not installed (`--cov` without pytest-cov): say how to run without them.
 */
function addoptsHint(tail: string): string {
  if (!tail.includes('unrecognized arguments:') || !tail.includes('inifile:')) return '';
  return '; pytest\'s addopts in the configuration it names ("inifile") hold options of a plugin that is not installed: install that plugin, or add "-o", "addopts=" to test.command (then none of addopts applies)';
}

/** Run the detected suite once and say what it showed; zero tests, a failing or no passing test, or a src package imported from elsewhere is a refusal. */
async function prove(ctx: CommandContext, repo: string, d: Detection, timeoutMs: number): Promise<void> {
  const { installedCopies, proveSuite, runnerImports } = await import('../../init/prove.js');
  const say = (s: string): void => ctx.stderr(`init: ${s}\n`);
  if (STACKS[d.stack].importOrigins) {
    for (const [pkg, where] of Object.entries(installedCopies(repo, d.srcPackages, ctx.env))) {
      say(
        `an installed copy of ${pkg} is at ${where}; test.env PYTHONPATH=src puts src/${pkg} before it (the proof run below says which one the tests imported)`,
      );
    }
    for (const pkg of runnerImports(d.srcPackages, ctx.env)) {
      say(
        `warning: pytest itself imports ${pkg}, so with src/ first it runs on this tree's ${pkg}: the mutation oracle's probes and mutants of ${pkg} change the test runner too, and a probe that makes ${pkg} raise stops pytest before any test reports ("its probe run crashed"), so symbols pytest calls cannot earn credit (E_CREDIT_MISSING); docs/runners.md, "pytest"`,
      );
    }
  }
  const envText = Object.entries(d.env)
    .map(([k, v]) => `${k}=${v} `)
    .join('');
  say(`running the suite once, inside the sandbox, to prove the config: ${envText}${JSON.stringify(d.command)}`);
  const { findBwrap, installRoot, readSecrets } = await import('../../sandbox/host.js');
  const { openBox } = await import('../../sandbox/run.js');
  // The suite runs inside the sandbox, as every run of the project's code does (E_SANDBOX_UNAVAILABLE without one).
  const box = openBox({
    isolation: 'bwrap',
    bwrap: ctx.env.SEALGATE_BWRAP || findBwrap(),
    env: ctx.env,
    secrets: readSecrets(repo, ctx.env, installRoot()),
    path: 'init',
  });
  const p = await proveSuite({ repo, detection: d, baseEnv: ctx.env, timeoutMs, box });
  const how = p.exec.timed_out
    ? `timed out after ${Math.round(timeoutMs / 1000)} s`
    : p.exec.spawn_error !== null
      ? `could not start (${p.exec.spawn_error})`
      : p.exec.signal !== null
        ? `ended by ${p.exec.signal}`
        : `exited ${String(p.exec.exit_code)}`;
  const reports = p.reports
    .map((r) => `${r.path} ${r.status}${r.detail !== undefined ? ` (${r.detail})` : ''}`)
    .join(', ');
  if (p.cases.length === 0) {
    const why = `the suite ran no test (the command ${how}; report: ${reports || 'none configured'})${p.tail ? `; its last output:\n${p.tail.replace(/^/gm, '    ')}` : ''}`;
    throw inputInvalid(
      CONFIG_PATH,
      `${why}\nfix test.command in ${CONFIG_PATH} (or install the test runner), then run \`sealgate init --check\` to prove it${addoptsHint(p.tail)}`,
    );
  }
  const c = p.counts;
  say(
    `${p.cases.length} test(s) ran: ${c.passed} passed, ${c.failed} failed, ${c.error} error, ${c.skipped} skipped (the command ${how}; report: ${reports})`,
  );
  const files = new Set(p.cases.map((k) => k.file));
  say(
    files.has(null)
      ? `warning: ${p.cases.filter((k) => k.file === null).length} test id(s) name no file (e.g. ${p.cases.find((k) => k.file === null)?.id ?? ''})`
      : `every test id names its file (${files.size} test file(s))`,
  );
  const failing = p.cases.filter((k) => k.status === 'failed' || k.status === 'error');
  const list = (ks: readonly { id: string }[]): string =>
    `${ks
      .slice(0, SHOWN_FAILURES)
      .map((k) => k.id)
      .join(', ')}${ks.length > SHOWN_FAILURES ? `, and ${ks.length - SHOWN_FAILURES} more` : ''}`;
  if (c.passed === 0) {
    // No passing test can earn credit: every patch would end in E_CREDIT_MISSING, whatever it tests.
    const why = failing.length > 0 ? `failing: ${list(failing)}` : `skipped: ${list(p.cases)}`;
    throw inputInvalid(
      CONFIG_PATH,
      `no test passed on the base tree (${p.cases.length} ran: ${c.failed} failed, ${c.error} error, ${c.skipped} skipped; ${why})${p.tail && failing.length > 0 ? `; the command's last output:\n${p.tail.replace(/^/gm, '    ')}` : ''}\nmake the suite pass on the base commit (install what it needs, or fix test.command or test.env in ${CONFIG_PATH}), then run \`sealgate init --check\` to prove it`,
    );
  }
  if (failing.length === 0 && p.exec.exit_code !== null && p.exec.exit_code !== 0) {
    // The gate rejects a run that exited non-zero though no case failed (an error outside any test): every proposal would.
    throw inputInvalid(
      CONFIG_PATH,
      `the command exited ${p.exec.exit_code} although no test failed (${p.cases.length} ran: ${c.passed} passed, ${c.skipped} skipped): the gate rejects such a sealed run (E_TESTS_FAILED), so every proposal would be rejected whatever it changes${p.tail ? `; the command's last output:\n${p.tail.replace(/^/gm, '    ')}` : ''}\nmake the command exit 0 on the base commit (an error outside the tests: a cache it cannot write, a coverage threshold, an unhandled error), then run \`sealgate init --check\` to prove it`,
    );
  }
  if (failing.length > 0) {
    // The gate takes a sealed run only when every case passed: every proposal would end in E_TESTS_FAILED, whatever it changes.
    throw inputInvalid(
      CONFIG_PATH,
      `${failing.length} test(s) fail on the base tree (${p.cases.length} ran: ${c.passed} passed, ${c.failed} failed, ${c.error} error, ${c.skipped} skipped; failing: ${list(failing)}): the gate rejects a sealed run with a failing case (E_TESTS_FAILED), so every proposal would be rejected whatever it changes${p.tail ? `; the command's last output:\n${p.tail.replace(/^/gm, '    ')}` : ''}\nmake the suite pass on the base commit (install what it needs, or fix test.command or test.env in ${CONFIG_PATH} so that it runs only the tests), then run \`sealgate init --check\` to prove it`,
    );
  }
  if (STACKS[d.stack].importOrigins && d.srcPackages.length > 0) {
    for (const pkg of d.srcPackages) {
      const at = p.origins[pkg];
      if (at === undefined)
        say(`production code: ${pkg} was not imported by the suite (its __file__ was not found after the run)`);
      else if (at.startsWith('src/'))
        say(`production code: ${pkg} imported from ${at} (the module's __file__ after the suite ran)`);
      else
        throw inputInvalid(
          CONFIG_PATH,
          `the tests imported ${pkg} from ${at}, not from src/${pkg}: they test another copy, not the tree the runner seals\nput src/ first (test.env PYTHONPATH in ${CONFIG_PATH}; or uninstall that copy), then run \`sealgate init --check\` to prove it`,
        );
    }
  } else if (!STACKS[d.stack].importOrigins) {
    say(
      "production code: the tests import the project's files by relative path from the work tree (a runner that transforms modules, like vitest and jest, does not report the files it loaded)",
    );
  }
}

export const command: Command = {
  usage: `Usage: sealgate init [--repo DIR] [--force] [--no-run] [--timeout SECONDS]
       sealgate init --check [--repo DIR] [--timeout SECONDS]

Detects the project's test runner and writes a starting ${CONFIG_PATH} with a test
command whose report sealgate reads and whose ids name their file, the report paths,
and the fixture folders found (or none); and the GitHub Actions workflow
${WORKFLOW_PATH} (author, runner and gate jobs).

  vitest     package.json: vitest (JUnit reporter, --outputFile.junit)
  jest       package.json: jest (jest's own --json report; no jest-junit needed)
  node:test  package.json scripts "node --test" or plain test files (sealgate's reporter)
  mocha      package.json: mocha (xunit reporter)
  pytest     pyproject.toml, setup.cfg, pytest.ini/.toml, tox.ini (xunit1 JUnit; with a src
             layout, test.env PYTHONPATH=src puts src/ before any installed copy)
  Go, Maven, Gradle, Rust: a starting command; it says what is supported today.

Then it runs the suite once, the way \`sealgate run\` runs it, and prints how many tests
ran, passed and failed, and where the production code was imported from where it can
tell. A suite that reports zero tests, a failing test or a non-zero exit with none failing
(the gate would reject every proposal: E_TESTS_FAILED), or no passing test is a refusal
(E_INPUT_INVALID), not a success; so is a src-layout package the tests import from outside
src/.
Existing files are left alone unless --force. Review both files: they are a start.
With --check, nothing is written: the ${CONFIG_PATH} already in the repository (edited
by hand, say) is proven the same way, its test command, reports and test.env as they are.

  --repo DIR         the repository (default: .)
  --force            overwrite existing files
  --check            prove the existing ${CONFIG_PATH} (write nothing)
  --no-run           write the files without running the suite
  --timeout SECONDS  limit for the proof run (default 600)

Exit: 0 written (and proven) or checked, 1 a refusal (E_INPUT_INVALID), 2 bad arguments.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, {
      repo: { type: 'string' },
      force: { type: 'boolean' },
      'no-run': { type: 'boolean' },
      check: { type: 'boolean' },
      timeout: { type: 'string' },
    });
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    if (!isDir(repo)) throw inputInvalid('--repo', `"${repo}" is not a folder`);
    if (values.timeout !== undefined && (!/^[1-9][0-9]{0,5}$/.test(values.timeout) || Number(values.timeout) > 86_400))
      throw usageError('--timeout takes whole seconds, 1 to 86400');
    const timeoutMs = Number(values.timeout ?? 600) * 1000;
    const detection = detectStack(readRepoScan(repo));
    if (values.check) {
      if (values.force || values['no-run'])
        throw usageError('--check writes nothing and runs the suite: it takes neither --force nor --no-run');
      const named = CONFIG_NAMES.filter((n) => existsSync(join(repo, n)));
      if (named.length === 0) throw inputInvalid(CONFIG_PATH, 'not found; run `sealgate init` to write one');
      // The file as it is (strict parse; two config files are refused), with what only the scan can tell (the stack, a src layout) from the scan.
      const test = readConfig(repo).test;
      if (test.command === undefined) throw inputInvalid(`${CONFIG_PATH}#test.command`, 'not set: nothing to prove');
      const checked: Detection = { ...detection, command: test.command, junit: test.junit, env: test.env };
      ctx.stderr(`init: checking ${named.join(', ')} as it is (nothing is written); stack: ${detection.stack}\n`);
      await prove(ctx, repo, checked, timeoutMs);
      ctx.stderr(`init: ${named.join(', ')} proven: commit it, the runner reads the policy from the base commit\n`);
      return 0;
    }
    const config = toDetectedConfig(detection);
    const checked = checkSchema(ConfigSchema, config, CONFIG_PATH);
    if (!checked.ok)
      throw new SealgateError(
        'E_INTERNAL',
        checked.findings.map((f) => ({ ...f, code: 'E_INTERNAL' as const })),
      );
    const files: [string, string][] = [
      [CONFIG_PATH, toJsonText(config)],
      [WORKFLOW_PATH, WORKFLOW_YML],
    ];
    const existing = files.filter(([p]) => existsSync(join(repo, p))).map(([p]) => p);
    if (existing.length > 0 && !values.force)
      throw inputInvalid(existing.join(', '), 'already exists; pass --force to overwrite');
    for (const [p, text] of files) {
      mkdirSync(dirname(join(repo, p)), { recursive: true });
      writeFileAtomic(join(repo, p), text);
      ctx.stdout(`${join(repo, p)}\n`);
    }
    const say = (s: string): void => ctx.stderr(`init: ${s}\n`);
    say(`stack: ${detection.stack} (${detection.evidence})`);
    say(`test.command: ${detection.command === null ? '(none: set it by hand)' : JSON.stringify(detection.command)}`);
    if (Object.keys(detection.env).length > 0) say(`test.env: ${JSON.stringify(detection.env)}`);
    say(`test.junit: ${detection.junit.join(', ') || '(none)'}`);
    say(`fixtures: ${detection.fixtures.join(', ') || 'none found ([]: the digest covers seed, clock and locale)'}`);
    for (const n of detection.notes) say(n);
    for (const w of detection.warnings) say(`warning: ${w}`);
    if (detection.command === null)
      throw inputInvalid(
        `${CONFIG_PATH}#test.command`,
        'no test runner recognised: set test.command and test.junit, then run `sealgate init --check` to prove them',
      );
    if (!PROVABLE.has(detection.stack)) {
      say('the suite was not run: sealgate has no mutation oracle for this language yet (see above)');
      return 0;
    }
    if (values['no-run']) {
      say('the suite was not run (--no-run): run `sealgate init --check` to prove the config');
      return 0;
    }
    await prove(ctx, repo, detection, timeoutMs);
    say(
      `review ${CONFIG_PATH} and ${WORKFLOW_PATH}, then commit them: the runner reads the policy from the base commit`,
    );
    return 0;
  },
};
