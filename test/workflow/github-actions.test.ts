import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readConfig } from '../../src/config/read.js';
import { WORKFLOW_YML } from '../../src/init/templates.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/git.js';

const PATH = 'examples/github-actions/sealgate.yml';
const text = readFileSync(PATH, 'utf8');

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
  if?: string;
  'working-directory'?: string;
}
interface Job {
  needs?: string | string[];
  steps: Step[];
  env?: Record<string, string>;
  permissions?: unknown;
  'runs-on'?: string;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: unknown;
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const needs = (j: Job): string[] => (j.needs === undefined ? [] : Array.isArray(j.needs) ? j.needs : [j.needs]);
/** The step that seals: `sealgate seal`, or `sealgate runner` (whose first step is the seal). */
const isSeal = (s: Step): boolean => /\bsealgate"? (seal|runner)\b|"\$SEALGATE" (seal|runner)\b/.test(s.run ?? '');
const uploadsLogs = (s: Step): boolean =>
  (s.uses ?? '').startsWith('actions/upload-artifact') &&
  /(^|\n|\s)review\/?(\n|$|\s)|logs/.test(String(s.with?.['path'] ?? ''));
const BASE_REF = '${{ github.event.pull_request.base.sha }}';
/** Every line of every shell step, with its job. */
const runLines = (w: Workflow): { job: string; step: Step; line: string }[] =>
  Object.entries(w.jobs).flatMap(([job, j]) =>
    j.steps.flatMap((step) => (step.run ?? '').split('\n').map((line) => ({ job, step, line }))),
  );

/** Checks the template's contract; returns the problems found (empty: fine). */
function checkWorkflow(w: Workflow): string[] {
  const out: string[] = [];
  const { author, runner, gate } = w.jobs;
  if (!author || !runner || !gate) return ['jobs author, runner and gate are required'];
  if (needs(author).length !== 0) out.push('author must not wait for anything');
  if (!needs(runner).includes('author')) out.push('runner must need author');
  if (!needs(gate).includes('author') || !needs(gate).includes('runner')) out.push('gate must need author and runner');
  const ids = { author: w.env['AUTHOR_JOB'] ?? '', runner: w.env['RUNNER_JOB'] ?? '' };
  for (const [job, id] of Object.entries(ids)) {
    for (const part of ['${{ github.run_id }}', '${{ github.run_attempt }}', job])
      if (!id.includes(part)) out.push(`${job} id "${id}" lacks ${part}`);
  }
  if (ids.author === ids.runner) out.push('author and runner ids are the same');

  // 1. The workflow definition comes from the base branch: pull_request_target or workflow_run only.
  const triggers = Object.keys(w.on ?? {});
  if (triggers.length === 0 || triggers.some((t) => t !== 'pull_request_target' && t !== 'workflow_run'))
    out.push(`triggers must be pull_request_target or workflow_run only (got ${triggers.join(', ')})`);

  // 2. Least permissions: none at the top, read-only contents per job, nothing written.
  if (JSON.stringify(w.permissions) !== '{}') out.push('top-level permissions must be {}');
  for (const [name, job] of Object.entries(w.jobs)) {
    if (JSON.stringify(job.permissions) !== JSON.stringify({ contents: 'read' }))
      out.push(`${name}: permissions must be exactly { contents: read }`);
  }

  // 3. Checkouts: the base commit only, no persisted credentials; the head is only fetched as data.
  for (const [name, job] of Object.entries(w.jobs)) {
    for (const s of job.steps.filter((x) => (x.uses ?? '').startsWith('actions/checkout'))) {
      if (s.with?.['ref'] !== BASE_REF) out.push(`${name}: checkout must be of the base commit (ref: ${BASE_REF})`);
      if (s.with?.['persist-credentials'] !== false) out.push(`${name}: checkout must set persist-credentials: false`);
      if (s.with?.['repository'] !== undefined) out.push(`${name}: checkout of another repository`);
    }
  }
  for (const { job, line } of runLines(w)) {
    if (/\bgit (checkout|switch|worktree|apply|am|merge|pull|cherry-pick|reset|restore|stash)\b/.test(line))
      out.push(`${job}: "${line.trim()}" would put PR files on disk`);
    if (/HEAD_SHA|head\.sha|head\.ref/.test(line) && !/^\s*git (fetch|diff) /.test(line))
      out.push(`${job}: the PR head is used other than by git fetch/diff: "${line.trim()}"`);
  }
  const diff = runLines(w).find((l) => /^\s*git diff .*"\$BASE_SHA\.\.\.\$HEAD_SHA" > "\$PATCH"$/.test(l.line));
  if (diff?.job !== 'author')
    out.push('the author job must write the patch with git diff "$BASE_SHA...$HEAD_SHA" > "$PATCH"');
  if (!(w.env['HEAD_SHA'] ?? '').includes('head.sha') || !(w.env['BASE_SHA'] ?? '').includes('base.sha'))
    out.push('BASE_SHA and HEAD_SHA must come from the event');

  // 4. sealgate: pinned, installed outside the checkout with no scripts, run by absolute path.
  if (!/^\d+\.\d+\.\d+$/.test(w.env['SEALGATE_VERSION'] ?? '')) out.push('SEALGATE_VERSION must be an exact version');
  if (
    !/^\$\{\{ github\.workspace \}\}\/\.\.\/sealgate-tool\/node_modules\/sealgate\/bin\/sealgate\.js$/.test(
      w.env['SEALGATE'] ?? '',
    )
  )
    out.push('SEALGATE must be the absolute path of the installed bin/sealgate.js, outside the checkout');
  for (const { job, step, line } of runLines(w)) {
    if (/\bnpx\b|\bnpm (run|exec|test|start|x)\b|\bpnpm\b|\byarn\b/.test(line))
      out.push(`${job}: "${line.trim()}" runs a package manager's scripts or binaries`);
    if (/\bnpm (install|i|add)\b/.test(line)) {
      if (
        step['working-directory'] !== '${{ github.workspace }}/..' ||
        !/--prefix sealgate-tool\b/.test(line) ||
        !/--ignore-scripts\b/.test(line) ||
        !line.includes('"sealgate@$SEALGATE_VERSION"')
      ) {
        out.push(
          `${job}: npm install only of the pinned sealgate, outside the checkout, with --ignore-scripts: "${line.trim()}"`,
        );
      }
    }
    if (/\bnpm ci\b/.test(line) && (job !== 'runner' || !/--ignore-scripts\b/.test(line)))
      out.push(`${job}: npm ci only in the runner, of the base lockfile, with --ignore-scripts`);
    if (
      /\bsealgate\b/.test(line) &&
      /\bsealgate (propose|seal|run|runner|credit|publish|verify|gate|explain|freeze|attest)\b/.test(
        line.replace(/"\$SEALGATE"/g, ''),
      )
    )
      out.push(`${job}: sealgate must be invoked as node "$SEALGATE": "${line.trim()}"`);
    if (line.includes('"$SEALGATE"') && !/^\s*node "\$SEALGATE" /.test(line) && !line.endsWith('|| status=$?'))
      out.push(`${job}: run sealgate as node "$SEALGATE" ...: "${line.trim()}"`);
  }
  for (const [name, job] of Object.entries(w.jobs)) {
    const install = job.steps.findIndex((s) => /npm install .*sealgate@/.test(s.run ?? ''));
    const first = job.steps.findIndex((s) => (s.run ?? '').includes('"$SEALGATE"'));
    if (first >= 0 && (install < 0 || install > first)) out.push(`${name}: sealgate used before it is installed`);
  }

  // 5. The signing key: a secret in the runner's runner step only, unset before sealgate starts.
  const secretSteps = Object.entries(w.jobs).flatMap(([job, j]) =>
    j.steps.filter((s) => JSON.stringify(s).includes('secrets.')).map((s) => ({ job, s })),
  );
  const keyStep = runner.steps.find((s) => /"\$SEALGATE" runner\b/.test(s.run ?? ''));
  if (!keyStep) out.push('the runner job must run sealgate runner');
  if (
    JSON.stringify(w.env).includes('secrets.') ||
    Object.values(w.jobs).some((j) => JSON.stringify(j.env ?? {}).includes('secrets.'))
  )
    out.push('no secret in workflow or job env');
  if (secretSteps.length !== 1 || secretSteps[0]?.s !== keyStep)
    out.push('exactly one step, the runner step, may see a secret');
  else {
    const envNames = Object.keys(keyStep?.env ?? {});
    const run = keyStep?.run ?? '';
    if (
      envNames.length !== 1 ||
      !run.includes(`unset ${envNames[0] ?? ''}`) ||
      run.indexOf('unset') > run.indexOf('"$SEALGATE"')
    )
      out.push('the key variable must be unset before sealgate starts');
    if (
      !run.includes('--signing-key "$key"') ||
      !run.includes('umask 077') ||
      !run.includes('rm -f "$key"') ||
      !run.includes('$RUNNER_TEMP')
    )
      out.push('the key goes to a 0600 file outside the checkout, is passed with --signing-key and removed after');
  }

  // 6. The sandbox: bubblewrap and the user-namespace sysctl before the runner step.
  const runnerAt = keyStep ? runner.steps.indexOf(keyStep) : -1;
  const bwrap = runner.steps.findIndex(
    (s) =>
      (s.run ?? '').includes('apt-get install -y bubblewrap') &&
      (s.run ?? '').includes('sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'),
  );
  if (bwrap < 0 || bwrap > runnerAt)
    out.push('the runner job must install bubblewrap and lift the userns restriction before the runner step');

  // 7. Logs: uploaded only after the seal, and only by the runner.
  const runnerSeal = runner.steps.findIndex(isSeal);
  if (runnerSeal < 0) out.push('the runner job never seals');
  runner.steps.forEach((s, k) => {
    if (uploadsLogs(s) && (runnerSeal < 0 || k < runnerSeal))
      out.push(`runner step ${k} uploads review files or logs before the seal`);
  });
  for (const [name, job] of Object.entries(w.jobs)) {
    if (
      name !== 'runner' &&
      job.steps.some(
        (s) =>
          (s.uses ?? '').startsWith('actions/upload-artifact') &&
          /review\/(runner|logs)|logs/.test(String(s.with?.['path'] ?? '')),
      )
    )
      out.push(`${name} uploads logs`);
    if (
      name !== 'runner' &&
      job.steps.some((s) => /sealgate"? (seal|run|runner|credit|publish|attest)\b/.test(s.run ?? ''))
    )
      out.push(`${name} runs a runner-only command`);
  }
  if (author.steps.some((s) => (s.run ?? '').includes('freeze'))) out.push('the author job may not write a freeze');
  if (
    !author.steps.some((s) =>
      /"\$SEALGATE" propose .*--author-job "\$AUTHOR_JOB" --runner-job "\$RUNNER_JOB".*--base "\$BASE_SHA"/.test(
        s.run ?? '',
      ),
    )
  )
    out.push('author must propose with both ids and the base commit');

  // 8. The gate: verify with the base checkout's policy (no --config, no other policy file).
  const verify = gate.steps.find((s) => /"\$SEALGATE" verify\b.*--now/.test(s.run ?? ''));
  if (!verify) out.push('gate must run verify with --now');
  else if (/--config|--policy|--attestation/.test(verify.run ?? ''))
    out.push('gate must verify against the base checkout policy (no --config, --policy or --attestation)');
  // The record's base decides the policy every step reads: the gate holds it to the pull request's base.
  if (verify && !(verify.run ?? '').includes('--expect-base "$BASE_SHA"'))
    out.push('gate must verify with --expect-base "$BASE_SHA" (the record names the base, and the base the policy)');
  // The runner job stops before reading another base's policy or running anything.
  const runnerStep = w.jobs['runner']?.steps.find((s) => /"\$SEALGATE" runner\b/.test(s.run ?? ''));
  if (!runnerStep || !(runnerStep.run ?? '').includes('--expect-base "$BASE_SHA"'))
    out.push('the runner job must run sealgate runner with --expect-base "$BASE_SHA"');
  if (w.env['BASE_SHA'] !== BASE_REF) out.push(`BASE_SHA must be ${BASE_REF}`);
  if (!gate.steps.some((s) => /"\$SEALGATE" explain --format md.*>> "\$GITHUB_STEP_SUMMARY"/.test(s.run ?? '')))
    out.push('gate must write explain --format md to the job summary');
  return out;
}

test('the GitHub Actions template: base-branch definition, base checkouts, pinned tool by absolute path, one key step, sandbox, logs after the seal', () => {
  const w = parse(text) as Workflow;
  assert.deepEqual(checkWorkflow(w), []);
});

test('the checker catches each way the template could be weakened', () => {
  const w = parse(text) as Workflow;
  const step = (job: string, pred: (s: Step) => boolean): Step => {
    const s = w.jobs[job]?.steps.find(pred);
    assert.ok(s, `${job} has the step`);
    return s;
  };
  const mutate = (
    label: string,
    want: RegExp,
    edit: (x: Workflow, find: (job: string, pred: (s: Step) => boolean) => Step) => void,
  ): void => {
    const x = structuredClone(w);
    edit(x, (job, pred) => {
      const s = x.jobs[job]?.steps.find(pred);
      assert.ok(s, `${label}: ${job} has the step`);
      return s;
    });
    assert.match(checkWorkflow(x).join('\n'), want, label);
  };
  step('runner', (s) => (s.run ?? '').includes('"$SEALGATE" runner'));
  mutate('a log upload before the seal', /before the seal/, (x) => {
    const steps = x.jobs['runner']?.steps ?? [];
    const [moved] = steps.splice(
      steps.findIndex((s) => (s.uses ?? '').startsWith('actions/upload-artifact')),
      1,
    );
    steps.splice(1, 0, moved as Step);
  });
  mutate('shared ids', /same|lacks runner/, (x) => void (x.env['RUNNER_JOB'] = x.env['AUTHOR_JOB'] ?? ''));
  mutate('a missing edge', /gate must need/, (x) => void ((x.jobs['gate'] as Job).needs = ['author']));
  mutate('pull_request', /triggers must be/, (x) => void (x.on = { pull_request: null }));
  mutate('pull_request_target plus push', /triggers must be/, (x) => void (x.on = { ...x.on, push: null }));
  mutate(
    'write permissions',
    /permissions must be exactly/,
    (x) => void ((x.jobs['gate'] as Job).permissions = { contents: 'read', 'pull-requests': 'write' }),
  );
  mutate('top-level permissions', /top-level permissions/, (x) => void (x.permissions = { contents: 'write' }));
  mutate(
    'persisted credentials',
    /persist-credentials/,
    (_x, find) =>
      void delete find('gate', (s) => (s.uses ?? '').startsWith('actions/checkout')).with?.['persist-credentials'],
  );
  mutate(
    'a checkout of the head',
    /checkout must be of the base/,
    (_x, find) =>
      void ((find('runner', (s) => (s.uses ?? '').startsWith('actions/checkout')).with as Record<string, string>)[
        'ref'
      ] = '${{ github.event.pull_request.head.sha }}'),
  );
  mutate(
    'git apply in the gate',
    /would put PR files on disk/,
    (x) => void x.jobs['gate']?.steps.splice(3, 0, { run: 'git apply --index "$PATCH"' }),
  );
  mutate(
    'npx in the gate',
    /package manager|invoked as node/,
    (_x, find) =>
      void (find('gate', (s) => (s.run ?? '').includes('verify')).run =
        'npx sealgate verify --review review --now "$(date -u +%Y-%m-%dT%H:%M:%SZ)"'),
  );
  mutate('no base check in the gate', /--expect-base/, (_x, find) => {
    const s = find('gate', (y) => (y.run ?? '').includes('verify'));
    s.run = (s.run ?? '').replace(' --expect-base "$BASE_SHA"', '');
  });
  mutate('no base check in the runner job', /runner with --expect-base/, (_x, find) => {
    const s = find('runner', (y) => /"\$SEALGATE" runner\b/.test(y.run ?? ''));
    s.run = (s.run ?? '').replace(' --expect-base "$BASE_SHA"', '');
  });
  mutate(
    'BASE_SHA from the head',
    /BASE_SHA must be/,
    (x) => void (x.env['BASE_SHA'] = '${{ github.event.pull_request.head.sha }}'),
  );
  mutate(
    'npm exec',
    /package manager/,
    (_x, find) =>
      void (find('gate', (s) => (s.run ?? '').includes('verify')).run =
        'npm exec -- sealgate verify --review review --now x'),
  );
  mutate(
    'an unpinned install',
    /SEALGATE_VERSION|npm install only/,
    (x) => void (x.env['SEALGATE_VERSION'] = 'latest'),
  );
  mutate(
    'an install inside the checkout',
    /npm install only/,
    (_x, find) => void delete find('gate', (s) => (s.run ?? '').includes('npm install'))['working-directory'],
  );
  mutate('an install with scripts', /npm install only/, (_x, find) => {
    const s = find('gate', (y) => (y.run ?? '').includes('npm install'));
    s.run = (s.run ?? '').replace(' --ignore-scripts', '');
  });
  mutate(
    'sealgate from the checkout',
    /SEALGATE must be/,
    (x) => void (x.env['SEALGATE'] = 'node_modules/sealgate/bin/sealgate.js'),
  );
  mutate(
    'the secret in the gate too',
    /one step, the runner step/,
    (_x, find) =>
      void (find('gate', (s) => (s.run ?? '').includes('verify')).env = { K: '${{ secrets.SEALGATE_RUNNER_KEY }}' }),
  );
  mutate(
    'the secret in the job env',
    /no secret in workflow or job env/,
    (x) =>
      void ((x.jobs['runner'] as Job).env = {
        ...(x.jobs['runner']?.env ?? {}),
        K: '${{ secrets.SEALGATE_RUNNER_KEY }}',
      }),
  );
  mutate('the key variable left set', /unset before sealgate/, (_x, find) => {
    const s = find('runner', (y) => (y.run ?? '').includes('"$SEALGATE" runner'));
    s.run = (s.run ?? '').replace('unset SIGNING_KEY_PEM\n', '');
  });
  mutate(
    'no sandbox',
    /bubblewrap/,
    (_x, find) => void (find('runner', (s) => (s.run ?? '').includes('bubblewrap')).run = 'true'),
  );
  mutate('the sysctl left out', /bubblewrap/, (_x, find) => {
    const s = find('runner', (y) => (y.run ?? '').includes('bubblewrap'));
    s.run = (s.run ?? '').replace(/.*sysctl.*\n/, '');
  });
  mutate('the gate with another policy', /base checkout policy/, (_x, find) => {
    const s = find('gate', (y) => (y.run ?? '').includes('verify'));
    s.run = `${s.run ?? ''} --config review/sealgate.config.json`;
  });
  mutate(
    'the head checked out by hand',
    /would put PR files on disk|PR head is used/,
    (x) => void x.jobs['runner']?.steps.splice(2, 0, { run: 'git checkout "$HEAD_SHA"' }),
  );
});

test('init writes the same workflow and a config the schema accepts; refuses to overwrite', async () => {
  assert.equal(WORKFLOW_YML, text, 'src/init/templates.ts must match examples/github-actions/sealgate.yml');
  const t = tempDir();
  try {
    mkdirSync(join(t.dir, 'test/fixtures'), { recursive: true });
    writeFileSync(join(t.dir, 'package.json'), '{}\n');
    writeFileSync(join(t.dir, 'test/a.test.js'), '');
    const out = await runCli(['init', '--repo', t.dir, '--no-run'], { cwd: t.dir });
    assert.equal(out.exit, 0, out.stderr);
    assert.equal(readFileSync(join(t.dir, '.github/workflows/sealgate.yml'), 'utf8'), text);
    const config = JSON.parse(readFileSync(join(t.dir, 'sealgate.config.json'), 'utf8')) as { fixtures: string[] };
    assert.deepEqual(config.fixtures, ['test/fixtures/**']);
    const again = await runCli(['init', '--repo', t.dir, '--no-run'], { cwd: t.dir });
    assert.deepEqual([again.stdout.trim(), again.exit], ['E_INPUT_INVALID', 1]);
    assert.equal((await runCli(['init', '--repo', t.dir, '--force', '--no-run'], { cwd: t.dir })).exit, 0);
    // The written config is one sealgate itself reads.
    assert.deepEqual(readConfig(t.dir).fixtures, ['test/fixtures/**']);
    assert.ok(existsSync(join(t.dir, 'sealgate.config.json')));
  } finally {
    t.dispose();
  }
});
