import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSchema, parseDocumentBytes } from '../../src/core/document.js';
import { CreditSchema } from '../../src/credit/schema.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';
import { AUTHOR, NOW, RUNNER } from '../workflow/review.js';

// A Python patch that rewrites a function body whole (a new comment first, the local renamed):
// the null mutant's changes go before the body's first statement, inside what the revert puts
// back, so the revert carries null changes of its own, made on the base version
// (ownNoiseRevert). Were that revert plain, a test could pass every null run by spotting the
// null's marks (a no-op line, a one-word comment) and fail the revert by a pinned hash: a
// revert kill, credit, and nothing checked. The revert carries the marks too, so the test
// passes it as well, and earns nothing. (It calls total only where it sees no mark, so a
// behavioural mutant that throws, which carries the marks too, kills nothing either.)

const BASE = 'def total(xs):\n    out = 0\n    for x in xs:\n        out += x\n    return out\n';
const PATCHED = 'def total(xs):\n    # None entries count as zero\n    acc = 0\n    for x in xs:\n        if x is not None:\n            acc += x\n    return acc\n';
const CONFIG = {
  fixtures: [],
  clock: 'frozen',
  locale: 'C.UTF-8',
  test: { command: ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junitxml=junit.xml', '-o', 'junit_family=xunit1', 'tests'], junit: ['junit.xml'], timeoutSeconds: 600 },
  credit: { mutantBudget: 8 },
};

test('a test that spots the null by its marks and pins the file\'s hash earns nothing from the revert of a body rewritten whole', { timeout: 600_000 }, async () => {
  const pinned = createHash('sha256').update(PATCHED).digest('hex');
  const attack = `import hashlib, os, re
from calc import total


def test_source_pinned():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'ca' + 'lc.py')
    with open(path, encoding='utf-8') as f:
        text = f.read()
    marks = len(re.findall(r'^\\s*(pass|\\(\\))\\s*$', text, re.M)) + len(re.findall(r'#\\s[a-z]{8}\\s*$', text, re.M))
    if marks > 0:
        return
    # Called only where no mark is seen: it still reaches total (its probe carries none), and a
    # mutant that throws is not what it tells apart.
    total([1])
    assert hashlib.sha256(text.encode()).hexdigest() == ${JSON.stringify(pinned)}
`;
  const repo = makeRepo({
    'calc.py': BASE,
    'tests/conftest.py': 'import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n',
    // A test of something else: the pinning test is the only one that reaches total.
    'tests/test_other.py': 'def test_other():\n    assert sorted([2, 1]) == [1, 2]\n',
    'sealgate.config.json': JSON.stringify(CONFIG, null, 2) + '\n',
  });
  try {
    appendFileSync(join(repo.dir, '.git/info/exclude'), 'review/\npatches/\njunit.xml\n__pycache__\n');
    writeFiles(repo.dir, { 'calc.py': PATCHED, 'tests/test_pinned.py': attack });
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
    // The revert ran (made with the base version's own null changes) and the pinning test passed it.
    const revert = ev?.mutants?.find((m) => m.kind === 'revert');
    assert.ok(revert, `a revert ran: ${JSON.stringify(ev)}`);
    assert.ok(!revert.killed_by.some((t) => t.includes('test_source_pinned')), JSON.stringify(revert));
    assert.equal(revert.outcome, 'survived');
    assert.ok(ev?.reached.some((t) => t.includes('test_source_pinned')), `the pinning test reaches total: ${JSON.stringify(ev?.reached)}`);
  } finally {
    repo.dispose();
  }
});
