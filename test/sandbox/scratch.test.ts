import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makeRepo, tempDir } from '../helpers/git.js';
import { childEnv } from '../helpers/oracle.js';
import { testBox } from '../helpers/sandbox.js';
import { planMounts, SANDBOX_WORK } from '../../src/sandbox/plan.js';
import { dependencyFolders, openBox } from '../../src/sandbox/run.js';
import { findBwrap, readSecrets } from '../../src/sandbox/host.js';
import { packageRoot } from '../../src/core/package-root.js';
import { makeScratch, makeWorkspace, runTestCommand } from '../../src/credit/runs/test-run.js';

// vite (and so vitest with a config file) bundles the config into node_modules/.vite-temp and
// imports it from there. node_modules is read-only in the sandbox, so every such project
// failed its run with EROFS. That folder now gets a fresh tmpfs per run: writable, empty at the
// start of every run, and nothing written there reaches the host or the next run.

const run = { work: '/h/work', home: '/h/home', tmp: '/h/tmp' };

test('plan: a scratch folder of a dependency folder is a fresh tmpfs over its read-only bind, after it', () => {
  const mounts = planMounts({
    run,
    host: { system: [], readOnly: [], hidden: [] },
    deps: [
      { name: 'node_modules', src: '/h/deps/node_modules', scratch: ['.vite-temp'] },
      { name: '.venv', src: '/h/deps/.venv' },
    ],
  });
  const bind = mounts.findIndex((m) => m.kind === 'ro-bind' && m.dest === `${SANDBOX_WORK}/node_modules`);
  const tmpfs = mounts.findIndex((m) => m.kind === 'tmpfs' && m.dest === `${SANDBOX_WORK}/node_modules/.vite-temp`);
  assert.ok(bind >= 0 && tmpfs > bind, JSON.stringify(mounts));
  // Nothing else of the dependency folders is writable.
  assert.deepEqual(
    mounts.filter((m) => m.kind === 'tmpfs').map((m) => m.dest),
    [`${SANDBOX_WORK}/node_modules/.vite-temp`],
  );
});

test('dependencyFolders: .vite-temp only where vite is installed, .vitest only where vitest is, made when missing, and only a real folder', () => {
  const t = tempDir();
  try {
    const box = openBox({
      isolation: 'bwrap',
      bwrap: findBwrap(),
      env: process.env,
      secrets: readSecrets(t.dir, process.env, packageRoot()),
      path: 'test',
    });
    const tree = (name: string, files: Record<string, string>): string => {
      const dir = join(t.dir, name);
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(join(dir, rel, '..'), { recursive: true });
        writeFileSync(join(dir, rel), text);
      }
      return dir;
    };
    const withVite = tree('a', { 'node_modules/vite/package.json': '{}' });
    assert.deepEqual(dependencyFolders(box, withVite), [
      { name: 'node_modules', src: join(withVite, 'node_modules'), scratch: ['.vite-temp'] },
    ]);
    assert.ok(existsSync(join(withVite, 'node_modules', '.vite-temp')));
    // vitest before 1.0 writes its results cache to node_modules/.vitest after the tests: read-only, a green run exits 1 (antfu/utils at vitest 0.31).
    const withVitest = tree('e', { 'node_modules/vite/package.json': '{}', 'node_modules/vitest/package.json': '{}' });
    assert.deepEqual(dependencyFolders(box, withVitest), [
      { name: 'node_modules', src: join(withVitest, 'node_modules'), scratch: ['.vite-temp', '.vitest'] },
    ]);
    assert.ok(existsSync(join(withVitest, 'node_modules', '.vitest')));
    const noVite = tree('b', { 'node_modules/left-pad/package.json': '{}' });
    assert.deepEqual(dependencyFolders(box, noVite), [{ name: 'node_modules', src: join(noVite, 'node_modules') }]);
    assert.ok(!existsSync(join(noVite, 'node_modules', '.vite-temp')));
    assert.ok(!existsSync(join(noVite, 'node_modules', '.vitest')));
    // A link there is left alone: no tmpfs is put over what it points at.
    const linked = tree('c', { 'node_modules/vite/package.json': '{}', 'elsewhere/x': '' });
    symlinkSync(join(linked, 'elsewhere'), join(linked, 'node_modules', '.vite-temp'));
    assert.deepEqual(dependencyFolders(box, linked), [{ name: 'node_modules', src: join(linked, 'node_modules') }]);
    // Unsandboxed, the folder is linked into the copy as it is: nothing to cover.
    const none = openBox({
      isolation: 'none',
      bwrap: findBwrap(),
      env: process.env,
      secrets: readSecrets(t.dir, process.env, packageRoot()),
      path: 'test',
    });
    assert.deepEqual(dependencyFolders(none, tree('d', { 'node_modules/vite/package.json': '{}' })), [
      { name: 'node_modules', src: join(t.dir, 'd', 'node_modules') },
    ]);
  } finally {
    t.dispose();
  }
});

test(
  'real vitest with a vitest.config.mjs runs in the sandbox, and what a run leaves in node_modules/.vite-temp or .vitest is gone from the host and from the next run',
  { timeout: 120_000 },
  async () => {
    const repo = makeRepo({
      'package.json': '{"name":"vt","private":true,"type":"module"}\n',
      'vitest.config.mjs': "export default { test: { include: ['test/**/*.test.mjs'] } };\n",
      'test/a.test.mjs': `import { test, expect } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
test('a fresh scratch folder', () => {
  for (const dir of ['node_modules/.vite-temp', 'node_modules/.vitest']) {
    expect(existsSync(dir + '/left-by-a-run')).toBe(false);
    writeFileSync(dir + '/left-by-a-run', 'x');
  }
});
`,
      '.gitignore': 'node_modules\njunit.xml\n',
    });
    const scratch = makeScratch();
    try {
      symlinkSync(resolve('node_modules'), join(repo.dir, 'node_modules'), 'dir');
      const ws = makeWorkspace(repo.dir, scratch.dir);
      const command = ['node_modules/.bin/vitest', 'run', '--reporter=junit', '--outputFile.junit=junit.xml'];
      for (const round of [1, 2]) {
        const r = await runTestCommand(
          ws.root,
          command,
          ['junit.xml'],
          childEnv(),
          60_000,
          scratch.dir,
          testBox(repo.dir),
        );
        assert.equal(r.status, 'ok', `run ${round}: ${r.detail}`);
        assert.deepEqual(
          r.cases.map((c) => [c.name, c.status]),
          [['a fresh scratch folder', 'passed']],
          `run ${round}`,
        );
      }
      for (const dir of ['.vite-temp', '.vitest'])
        assert.ok(!readdirSync(resolve('node_modules', dir)).includes('left-by-a-run'), dir);
    } finally {
      scratch.dispose();
      repo.dispose();
    }
  },
);

test(
  'a tree whose file or folder stands where sealgate puts its node:test reporter is refused with the path and why, not a bare EEXIST',
  { timeout: 60_000 },
  async () => {
    for (const [files, why] of [
      [
        { '.sealgate': 'a file where a folder goes\n' },
        /the tree holds a file at \.sealgate, where sealgate puts the folder/,
      ],
      [
        { '.sealgate/node-test-reporter.mjs/x': 'a folder where a file goes\n' },
        /the tree holds a folder at this path/,
      ],
    ] as const) {
      const repo = makeRepo({ ...files, 'a.test.mjs': "import { test } from 'node:test';\ntest('a', () => {});\n" });
      const scratch = makeScratch();
      try {
        const ws = makeWorkspace(repo.dir, scratch.dir);
        const command = [
          'node',
          '--test',
          '--test-reporter=./.sealgate/node-test-reporter.mjs',
          '--test-reporter-destination=junit.xml',
        ];
        await assert.rejects(
          runTestCommand(ws.root, command, ['junit.xml'], childEnv(), 30_000, scratch.dir, testBox(repo.dir)),
          (err: Error & { code?: string }) => {
            assert.match(err.message, /\.sealgate\/node-test-reporter\.mjs/);
            assert.match(err.message, why);
            assert.doesNotMatch(err.message, /EEXIST|ENOTDIR|EISDIR/);
            return true;
          },
        );
      } finally {
        scratch.dispose();
        repo.dispose();
      }
    }
  },
);
