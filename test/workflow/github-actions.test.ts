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

interface Step { name?: string; run?: string; uses?: string; with?: Record<string, string> }
interface Job { needs?: string | string[]; steps: Step[]; env?: Record<string, string> }
interface Workflow { env: Record<string, string>; jobs: Record<string, Job> }

const needs = (j: Job): string[] => (j.needs === undefined ? [] : Array.isArray(j.needs) ? j.needs : [j.needs]);
const isSeal = (s: Step): boolean => /\bsealgate seal\b/.test(s.run ?? '');
const uploadsLogs = (s: Step): boolean => (s.uses ?? '').startsWith('actions/upload-artifact') && /(^|\n|\s)review\/?(\n|$|\s)|logs/.test(s.with?.['path'] ?? '');

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
    for (const part of ['${{ github.run_id }}', '${{ github.run_attempt }}', job]) if (!id.includes(part)) out.push(`${job} id "${id}" lacks ${part}`);
  }
  if (ids.author === ids.runner) out.push('author and runner ids are the same');
  const runnerSeal = runner.steps.findIndex(isSeal);
  if (runnerSeal < 0) out.push('the runner job never seals');
  runner.steps.forEach((s, k) => {
    if (uploadsLogs(s) && (runnerSeal < 0 || k < runnerSeal)) out.push(`runner step ${k} uploads review files or logs before the seal`);
  });
  for (const [name, job] of Object.entries(w.jobs)) {
    if (name !== 'runner' && job.steps.some((s) => (s.uses ?? '').startsWith('actions/upload-artifact') && /review\/(runner|logs)|logs/.test(s.with?.['path'] ?? ''))) out.push(`${name} uploads logs`);
    if (name !== 'runner' && job.steps.some((s) => /sealgate (seal|run|runner|credit|publish)\b/.test(s.run ?? ''))) out.push(`${name} runs a runner-only command`);
  }
  if (author.steps.some((s) => (s.run ?? '').includes('sealgate freeze'))) out.push('the author job may not write a freeze');
  if (!author.steps.some((s) => /sealgate propose .*--author-job "\$AUTHOR_JOB" --runner-job "\$RUNNER_JOB"/.test(s.run ?? ''))) out.push('author must propose with both ids');
  if (!gate.steps.some((s) => /sealgate verify\b.*--now/.test(s.run ?? ''))) out.push('gate must run verify with --now');
  if (!gate.steps.some((s) => /sealgate explain --format md.*>> "\$GITHUB_STEP_SUMMARY"/.test(s.run ?? ''))) out.push('gate must write explain --format md to the job summary');
  return out;
}

test('the GitHub Actions template: job graph, distinct ids, no log upload before the seal', () => {
  const w = parse(text) as Workflow;
  assert.deepEqual(checkWorkflow(w), []);
});

test('the checker catches a log upload moved before the seal, shared ids and a missing edge', () => {
  const w = parse(text) as Workflow;
  const steps = w.jobs['runner']?.steps ?? [];
  const upload = steps.findIndex((s) => (s.uses ?? '').startsWith('actions/upload-artifact'));
  const early = structuredClone(w);
  const [moved] = early.jobs['runner']?.steps.splice(upload, 1) ?? [];
  early.jobs['runner']?.steps.splice(1, 0, moved as Step);
  assert.match(checkWorkflow(early).join('\n'), /before the seal/);
  const shared = structuredClone(w);
  shared.env['RUNNER_JOB'] = shared.env['AUTHOR_JOB'] ?? '';
  assert.match(checkWorkflow(shared).join('\n'), /same|lacks runner/);
  const loose = structuredClone(w);
  (loose.jobs['gate'] as Job).needs = ['author'];
  assert.match(checkWorkflow(loose).join('\n'), /gate must need/);
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
