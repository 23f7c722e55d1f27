import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { niced } from '../../src/sandbox/exec.js';
import { findBwrap, installRoot, probeSandbox, readSecrets } from '../../src/sandbox/host.js';
import { yieldingPrefix } from '../../src/sandbox/plan.js';
import { openBox, runInFreshCopy } from '../../src/sandbox/run.js';

// A run made beside the sealed run (the credit prelude's, AHEAD_NICE) yields it the cores:
// its processes run at a lower priority, and so does the session group the kernel schedules
// them by (autogroup: every run starts a session of its own, and a group's share does not
// depend on its processes' niceness). Checked from inside the run, in both isolations.

const bwrap = findBwrap();
const kinds = [
  ['none', false],
  ['bwrap', probeSandbox(bwrap) !== null ? 'bubblewrap cannot run here' : false],
] as const;
const grouped = existsSync('/proc/self/autogroup');

for (const [isolation, skip] of kinds) {
  for (const nice of [undefined, 7]) {
    test(
      `${isolation}: a run ${nice === undefined ? 'without a niceness goes at the usual priority' : 'at niceness 7 sees it in its processes and its session group'}`,
      { skip },
      async () => {
        const source = mkdtempSync(join(tmpdir(), 'sealgate-yield-src-'));
        const out = mkdtempSync(join(tmpdir(), 'sealgate-yield-out-'));
        try {
          writeFileSync(join(source, 'a.txt'), 'a\n');
          const box = openBox({
            isolation,
            bwrap,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
            secrets: readSecrets(source, {}, installRoot()),
            path: 'test',
          });
          // The test's own view: its niceness (field 19 of /proc/self/stat; sh's name has no space) and its group's, and its argv is the project's.
          const seen = await runInFreshCopy(
            box,
            {
              source,
              deps: [],
              command: [
                'sh',
                '-c',
                'cut -d" " -f19 /proc/self/stat; sed "s/.* nice //" /proc/self/autogroup 2>/dev/null || echo none; echo "$0 $1"',
                'arg0',
                'arg1',
              ],
              env: { PATH: '/usr/bin:/bin' },
              limits: { timeoutMs: 30_000, capBytes: 1 << 20, ...(nice !== undefined ? { nice } : {}) },
              output: { stdoutPath: join(out, 'stdout'), stderrPath: join(out, 'stderr') },
            },
            (outcome) => {
              assert.equal(outcome.exit_code, 0, readFileSync(join(out, 'stderr'), 'utf8'));
              return readFileSync(join(out, 'stdout'), 'utf8').trim().split('\n');
            },
          );
          const want = String(nice ?? 0);
          assert.deepEqual(seen, [want, grouped ? want : 'none', 'arg0 arg1']);
        } finally {
          rmSync(source, { recursive: true, force: true });
          rmSync(out, { recursive: true, force: true });
        }
      },
    );
  }
}

test(
  'a run whose group write comes within 100 ms of another still gets its niceness (the kernel takes one unprivileged write per 100 ms, EAGAIN otherwise)',
  { skip: !grouped ? 'no autogroup here' : kinds[1][1] },
  async () => {
    const source = mkdtempSync(join(tmpdir(), 'sealgate-yield-src-'));
    const out = mkdtempSync(join(tmpdir(), 'sealgate-yield-out-'));
    try {
      writeFileSync(join(source, 'a.txt'), 'a\n');
      const box = openBox({
        isolation: 'bwrap',
        bwrap,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        secrets: readSecrets(source, {}, installRoot()),
        path: 'test',
      });
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        // Our own group's niceness written again as it is: the next write inside the window must wait (runs started together do this to each other).
        try {
          writeFileSync('/proc/self/autogroup', readFileSync('/proc/self/autogroup', 'utf8').replace(/^.* nice /, ''));
        } catch {
          /* rate-limited ourselves: the window is open anyway */
        }
        seen.push(
          await runInFreshCopy(
            box,
            {
              source,
              deps: [],
              command: ['sh', '-c', 'sed "s/.* nice //" /proc/self/autogroup'],
              env: { PATH: '/usr/bin:/bin' },
              limits: { timeoutMs: 30_000, capBytes: 1 << 20, nice: 5 },
              output: { stdoutPath: join(out, `stdout-${i}`), stderrPath: join(out, `stderr-${i}`) },
            },
            () => readFileSync(join(out, `stdout-${i}`), 'utf8').trim(),
          ),
        );
      }
      assert.deepEqual(seen, ['5', '5', '5']);
    } finally {
      rmSync(source, { recursive: true, force: true });
      rmSync(out, { recursive: true, force: true });
    }
  },
);

test("the words in front: nice for the process, a shell that sets its session group's niceness and then becomes the command; a niceness outside 1 to 19 is refused", () => {
  assert.deepEqual(niced(['bwrap', '--x'], 7, '/usr/bin/nice'), ['/usr/bin/nice', '-n', '7', '--', 'bwrap', '--x']);
  assert.deepEqual(niced(['bwrap'], undefined, '/usr/bin/nice'), ['bwrap']);
  assert.deepEqual(niced(['bwrap'], 7, null), ['bwrap'], 'no nice program: the usual priority');
  const prefix = yieldingPrefix(7);
  assert.deepEqual([prefix[0], prefix[1], prefix[3]], ['/bin/sh', '-c', '7']);
  assert.match(prefix[2] ?? '', /> \/proc\/self\/autogroup;.*exec "\$@"$/);
  for (const bad of [0, 20, -1, 2.5, Number.NaN]) {
    assert.throws(() => yieldingPrefix(bad), /niceness/);
    assert.throws(() => niced(['x'], bad, '/usr/bin/nice'), /niceness/);
  }
});
