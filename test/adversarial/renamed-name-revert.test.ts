import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSchema, parseDocumentBytes } from '../../src/core/document.js';
import { CreditSchema } from '../../src/credit/schema.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';
import { AUTHOR, NOW, RUNNER } from '../workflow/review.js';

// A revert that cannot run is no evidence. The patch renames a module constant (SCALE to
// FACTOR) and slips an untested branch into total. total's revert (its base version) still says
// SCALE, which the patched file no longer has: it raises NameError wherever it runs, so a test
// that passes on both versions "killed" it. The `<module>` revert puts SCALE back and takes
// FACTOR away, which the patched total uses: NameError again. Both "revert kills" credited,
// and even `credit.require: "revert"`, the per-symbol fail-to-pass rule, said ALLOW for a
// change no test tells from the base. Such a revert is now discarded as invalid, like a
// mutant that does not compile (src/credit/bindings.ts).

const BASE = 'SCALE = 100\n\n\ndef total(xs):\n    return sum(xs) * SCALE // 100\n';
const PATCHED = 'FACTOR = 100\n\n\ndef total(xs):\n    if len(xs) == 7:\n        return 0\n    return sum(xs) * FACTOR // 100\n';
const CONFIG = {
  fixtures: [],
  clock: 'frozen',
  locale: 'C.UTF-8',
  test: { command: ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=junit.xml', '-o', 'junit_family=xunit1', 'tests'], junit: ['junit.xml'], timeoutSeconds: 600 },
  credit: { mutantBudget: 8, require: 'revert' },
};

test('a revert that refers to a name the patch renamed earns nothing: it cannot run, so its failures tell no behaviour apart', { timeout: 600_000 }, async () => {
  const repo = makeRepo({
    'calc.py': BASE,
    'tests/conftest.py': 'import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n',
    'tests/test_other.py': 'def test_other():\n    assert sorted([2, 1]) == [1, 2]\n',
    'sealgate.config.json': JSON.stringify(CONFIG, null, 2) + '\n',
  });
  try {
    appendFileSync(join(repo.dir, '.git/info/exclude'), 'review/\npatches/\njunit.xml\n__pycache__\n');
    writeFiles(repo.dir, { 'calc.py': PATCHED, 'tests/test_total.py': 'from calc import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n' });
    git(repo.dir, 'add', '-A');
    const diff = git(repo.dir, 'diff', '--cached', '--binary', 'HEAD');
    git(repo.dir, 'reset', '-q');
    mkdirSync(join(repo.dir, 'patches'), { recursive: true });
    writeFileSync(join(repo.dir, 'patches/agent.diff'), diff);
    const env: Record<string, string> = { XDG_CACHE_HOME: join(repo.dir, 'review', 'cache') };
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_TEST_CONTEXT' && !(k in env)) env[k] = v;
    const p = await runCli(['propose', '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'patches/agent.diff', '--proposal-id', 'p-adversarial-1'], { cwd: repo.dir, env, now: new Date(NOW) });
    assert.equal(p.exit, 0, p.stderr);
    const r = await runCli(['runner', '--runner-job', RUNNER, '--seed', '42', '--now', NOW], { cwd: repo.dir, env, now: new Date(NOW) });
    const parsed = parseDocumentBytes(readFileSync(join(repo.dir, 'review/runner/credit.json')), 'json', 'credit');
    assert.ok(parsed.ok, r.stdout + r.stderr);
    const c = checkSchema(CreditSchema, parsed.value, 'credit');
    assert.ok(c.ok);
    const evidence = JSON.stringify(c.value.evidence, null, 2);
    assert.equal(r.stdout.trim(), 'E_CREDIT_MISSING', `${r.stderr}\n${evidence}`);
    for (const sym of ['calc.py::total', 'calc.py::<module>']) {
      assert.ok(c.value.missing.includes(sym), `${sym} missing: ${JSON.stringify(c.value.missing)}`);
      const rv = c.value.evidence?.[sym]?.revert as { outcome?: string; detail?: string } | undefined;
      assert.equal(rv?.outcome, 'invalid', `${sym}: ${JSON.stringify(rv)}`);
      assert.match(rv?.detail ?? '', sym.endsWith('total') ? /refers to SCALE/ : /refers to FACTOR/);
    }
  } finally {
    repo.dispose();
  }
});
