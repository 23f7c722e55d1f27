import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSchema, parseDocumentBytes } from '../../src/core/document.js';
import { CreditSchema } from '../../src/credit/schema.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';
import { AUTHOR, NOW, RUNNER } from '../workflow/review.js';

// Which body of an inherited test runs is Python's method resolution order (C3), not a
// depth-first walk of the bases. In `class TotalTest(A, B, TestCase)` with A(Base) and B(Base),
// Python runs B's test_total (TotalTest, A, B, Base): a call and no assertion, which the base
// version "fails" only by throwing on None. A depth-first walk (TotalTest, A, Base, B) reads
// Base's test_total instead, a real assertion: the throw on the revert earned the credit, and
// the gate said ALLOW for a change whose only test asserts that nothing throws.

const BASE = 'def total(xs):\n    out = 0\n    for x in xs:\n        out += x\n    return out\n';
const PATCHED = 'def total(xs):\n    out = 0\n    for x in xs:\n        if x is not None:\n            out += x\n    return out\n';
const ATTACK = `import unittest
from calc import total


class Base:
    def test_total(self):
        self.assertEqual(total([1, 2]), 3)


class A(Base):
    pass


class B(Base):
    def test_total(self):
        total([1, None])


class TotalTest(A, B, unittest.TestCase):
    pass
`;
const CONFIG = {
  fixtures: [],
  clock: 'frozen',
  locale: 'C.UTF-8',
  test: { command: ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=junit.xml', '-o', 'junit_family=xunit1', 'tests'], junit: ['junit.xml'], timeoutSeconds: 600 },
  credit: { mutantBudget: 8 },
};

test('a diamond of test classes: the body Python runs (no assertion) is what is classified, not the one a depth-first walk finds', { timeout: 600_000 }, async () => {
  const repo = makeRepo({
    'calc.py': BASE,
    'tests/conftest.py': 'import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n',
    'tests/test_other.py': 'def test_other():\n    assert sorted([2, 1]) == [1, 2]\n',
    'sealgate.config.json': JSON.stringify(CONFIG, null, 2) + '\n',
  });
  try {
    appendFileSync(join(repo.dir, '.git/info/exclude'), 'review/\npatches/\njunit.xml\n__pycache__\n');
    writeFiles(repo.dir, { 'calc.py': PATCHED, 'tests/test_total.py': ATTACK });
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
    const sym = 'calc.py::total';
    const ev = c.value.evidence?.[sym];
    assert.equal(r.stdout.trim(), 'E_CREDIT_MISSING', `${r.stderr}\n${JSON.stringify(ev, null, 2)}`);
    assert.deepEqual(c.value.missing, [sym]);
    // The test ran and passed, and is known by the body Python ran: no assertion.
    const cases = JSON.parse(readFileSync(join(repo.dir, 'review/runner/cases.json'), 'utf8')) as { cases: { id: string; status: string; kind: string }[] };
    const run = cases.cases.find((x) => x.id.endsWith('TotalTest::test_total'));
    assert.ok(run, JSON.stringify(cases.cases.map((x) => x.id)));
    assert.equal(run.status, 'passed');
    assert.equal(run.kind, 'tautology', JSON.stringify(run));
  } finally {
    repo.dispose();
  }
});
