import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { readDependencyFolders, pathRoots } from '../../src/sandbox/host.js';
import {
  SANDBOX_HOME,
  SANDBOX_TMP,
  SANDBOX_WORK,
  isWithin,
  planMounts,
  planSandbox,
  type HostView,
  type SandboxRequest,
} from '../../src/sandbox/plan.js';
import { resolveOutput } from '../../src/sandbox/run.js';
import { SECCOMP_FD, keyringFilter } from '../../src/sandbox/seccomp.js';
import { checkCreditIsolation, checkRunIsolation } from '../../src/verify/audit.js';
import type { JournalEvent } from '../../src/store/journal.js';
import { tempDir } from '../helpers/git.js';

const HOST: HostView = {
  system: [
    { path: '/usr', link: null },
    { path: '/bin', link: 'usr/bin' },
  ],
  readOnly: ['/etc/passwd', '/opt/pyenv'],
  hidden: [
    { path: '/usr/lib/node_modules/sealgate', dir: true },
    { path: '/opt/pyenv/secret.key', dir: false },
    { path: '/repo', dir: true },
  ],
};
const REQ: SandboxRequest = {
  isolation: 'bwrap',
  bwrap: '/usr/bin/bwrap',
  command: ['node', '--test'],
  env: { PATH: '/usr/bin', SEED: '1' },
  tmpFiles: { SEALGATE_TRACE_FILE: 'trace.txt' },
  run: { work: '/tmp/r/work', home: '/tmp/r/home', tmp: '/tmp/r/tmp' },
  host: HOST,
  deps: [{ name: 'node_modules', src: '/usr/lib/node_modules/sealgate/node_modules' }],
  limits: { timeoutMs: 1000, capBytes: 10 },
  output: { stdoutPath: '/store/out', stderrPath: '/store/err' },
};

test('planSandbox: every namespace, no way back to the parent session, an unprivileged uid, the tree at one fixed path, HOME and TMPDIR inside', () => {
  const p = planSandbox(REQ);
  const a = p.argv.join(' ');
  for (const flag of [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--new-session',
    '--uid 1000',
    '--gid 1000',
    `--chdir ${SANDBOX_WORK}`,
    '--remount-ro /',
    `--seccomp ${SECCOMP_FD}`,
  ])
    assert.ok(a.includes(flag), flag);
  assert.deepEqual(p.argv.slice(p.argv.indexOf('--') + 1), ['node', '--test']);
  assert.equal(p.argv[0], '/usr/bin/bwrap');
  assert.equal(p.cwd, SANDBOX_WORK);
  assert.equal(p.hostCwd, '/tmp/r/work');
  assert.deepEqual(p.env, {
    PATH: '/usr/bin',
    SEED: '1',
    SEALGATE_TRACE_FILE: `${SANDBOX_TMP}/trace.txt`,
    HOME: SANDBOX_HOME,
    TMPDIR: SANDBOX_TMP,
  });
  // The run's three fresh folders are the only writable binds.
  assert.deepEqual(
    p.mounts.filter((m) => m.kind === 'bind'),
    [
      { kind: 'bind', src: '/tmp/r/tmp', dest: SANDBOX_TMP },
      { kind: 'bind', src: '/tmp/r/home', dest: SANDBOX_HOME },
      { kind: 'bind', src: '/tmp/r/work', dest: SANDBOX_WORK },
    ],
  );
  // The dependency folder is read-only at its place in the tree; the hidden install under /usr is covered; a hidden key file under a bound root is /dev/null.
  assert.ok(p.mounts.some((m) => m.kind === 'ro-bind' && m.dest === `${SANDBOX_WORK}/node_modules`));
  assert.ok(p.mounts.some((m) => m.kind === 'tmpfs' && m.dest === '/usr/lib/node_modules/sealgate'));
  assert.ok(p.mounts.some((m) => m.kind === 'null' && m.dest === '/opt/pyenv/secret.key'));
  assert.ok(!p.mounts.some((m) => (m.kind === 'ro-bind' || m.kind === 'bind') && isWithin(m.src, '/repo')));
});

test('keyringFilter: classic BPF for every ABI of the host (x86-64 with i386 and x32, arm64 with arm), none for an unknown architecture', () => {
  const insns = (b: Buffer): { code: number; k: number }[] =>
    Array.from({ length: b.length / 8 }, (_, i) => ({ code: b.readUInt16LE(i * 8), k: b.readUInt32LE(i * 8 + 4) }));
  const x64 = keyringFilter('x64', 'LE') as Buffer;
  assert.equal(x64.length % 8, 0);
  const ks = insns(x64).map((i) => i.k);
  // Both ABIs checked, the x86-64, x32 and i386 numbers of add_key, request_key and keyctl refused, a foreign ABI killed.
  for (const k of [
    0xc000003e, 0x40000003, 248, 249, 250, 286, 287, 288, 0xbfffffff, 0x80000000, 0x00050001, 0x7fff0000,
  ])
    assert.ok(ks.includes(k), k.toString(16));
  assert.ok(insns(keyringFilter('arm64', 'LE') as Buffer).some((i) => i.k === 0xc00000b7));
  assert.equal(keyringFilter('mips', 'LE'), null);
  assert.equal(keyringFilter('x64', 'BE')?.readUInt32BE(4), 4);
});

test("planSandbox, unsandboxed: the command alone, in the run's fresh copy, HOME and TMPDIR the run's own", () => {
  const p = planSandbox({ ...REQ, isolation: 'none' });
  assert.deepEqual(p.argv, ['node', '--test']);
  assert.deepEqual(p.mounts, []);
  assert.equal(p.cwd, '/tmp/r/work');
  assert.deepEqual(
    [p.env.HOME, p.env.TMPDIR, p.env.SEALGATE_TRACE_FILE],
    ['/tmp/r/home', '/tmp/r/tmp', '/tmp/r/tmp/trace.txt'],
  );
});

const seg = fc.constantFrom('a', 'b', 'c', 'key', 'node_modules');
const absPath = fc.array(seg, { minLength: 1, maxLength: 4 }).map((xs) => `/${xs.join('/')}`);

test('property: a hidden path is never the source of a bind, and wherever a bind would show it, a later mount covers it', () => {
  fc.assert(
    fc.property(
      fc.array(absPath, { maxLength: 5 }),
      fc.array(absPath, { maxLength: 5 }),
      fc.array(fc.record({ path: absPath, dir: fc.boolean() }), { maxLength: 4 }),
      (system, readOnly, hidden) => {
        const host: HostView = { system: system.map((path) => ({ path, link: null })), readOnly, hidden };
        const mounts = planMounts({ host, run: REQ.run, deps: [] });
        for (const [i, m] of mounts.entries()) {
          if (m.kind !== 'ro-bind' || m.src === '/dev/null') continue;
          assert.ok(!hidden.some((h) => isWithin(m.src, h.path)), `${m.src} is hidden`);
          for (const h of hidden.filter((x) => isWithin(x.path, m.src))) {
            const dest = join(m.dest, h.path.slice(m.src.length));
            assert.ok(
              mounts.slice(i + 1).some((n) => (n.kind === 'tmpfs' || n.kind === 'null') && n.dest === dest),
              `${h.path} shows through ${m.src}`,
            );
          }
        }
      },
    ),
  );
});

test('dependency folders: real folders and links to a dependency folder; a link to evidence, to the install or to any other folder is refused', () => {
  const t = tempDir();
  try {
    const tree = join(t.dir, 'tree');
    const install = join(t.dir, 'sealgate');
    for (const d of [
      join(tree, '.venv'),
      join(install, 'node_modules'),
      join(install, 'dist'),
      join(t.dir, 'repo', 'review'),
      join(t.dir, 'other', 'node_modules'),
    ])
      mkdirSync(d, { recursive: true });
    symlinkSync(join(install, 'node_modules'), join(tree, 'node_modules'));
    const forbidden = [join(t.dir, 'repo', 'review'), install];
    assert.deepEqual(readDependencyFolders(tree, forbidden, install), {
      deps: [
        { name: 'node_modules', src: join(install, 'node_modules') },
        { name: '.venv', src: join(tree, '.venv') },
      ],
      refused: [],
    });
    for (const [target, why] of [
      [join(t.dir, 'repo', 'review'), /not a dependency folder/],
      [join(install, 'dist'), /not a dependency folder/],
      [install, /not a dependency folder/],
      [join(t.dir, 'nowhere'), /not a folder/],
    ] as const) {
      const evil = join(t.dir, `evil-${String(Math.random()).slice(2)}`);
      mkdirSync(evil);
      symlinkSync(target, join(evil, 'venv'));
      const r = readDependencyFolders(evil, forbidden, install);
      assert.deepEqual(r.deps, []);
      assert.match(r.refused.join(';'), why);
    }
    // A folder named node_modules inside a forbidden path is refused too.
    mkdirSync(join(t.dir, 'repo', 'review', 'node_modules'));
    const sneaky = join(t.dir, 'sneaky');
    mkdirSync(sneaky);
    symlinkSync(join(t.dir, 'repo', 'review', 'node_modules'), join(sneaky, 'node_modules'));
    assert.match(readDependencyFolders(sneaky, forbidden, install).refused.join(';'), /may not see/);
  } finally {
    t.dispose();
  }
});

test("resolveOutput: a report is read only through real folders to a regular file in the run's copy", () => {
  const t = tempDir();
  try {
    mkdirSync(join(t.dir, 'out'));
    writeFileSync(join(t.dir, 'out', 'j.xml'), '<x/>');
    writeFileSync(join(t.dir, 'secret'), 's');
    symlinkSync(join(t.dir, 'out'), join(t.dir, 'link-dir'));
    symlinkSync(join(t.dir, 'secret'), join(t.dir, 'out', 'link.xml'));
    assert.deepEqual(resolveOutput(t.dir, 'out/j.xml'), { path: join(t.dir, 'out', 'j.xml') });
    assert.match((resolveOutput(t.dir, 'link-dir/j.xml') as { missing: string }).missing, /not a folder/);
    assert.match((resolveOutput(t.dir, 'out/link.xml') as { missing: string }).missing, /not a regular file/);
    assert.match((resolveOutput(t.dir, 'out') as { missing: string }).missing, /not a regular file/);
    assert.match((resolveOutput(t.dir, 'none.xml') as { missing: string }).missing, /did not write/);
    assert.match((resolveOutput(t.dir, '../x.xml') as { missing: string }).missing, /plain relative/);
  } finally {
    t.dispose();
  }
});

test("pathRoots: a version manager's shims bring its whole root; system folders and missing entries bring nothing", () => {
  const t = tempDir();
  try {
    for (const d of ['pyenv/shims', 'pyenv/versions/3.11/bin', 'tools/bin'])
      mkdirSync(join(t.dir, d), { recursive: true });
    assert.deepEqual(
      pathRoots(
        [
          join(t.dir, 'pyenv', 'shims'),
          join(t.dir, 'pyenv', 'versions', '3.11', 'bin'),
          join(t.dir, 'tools', 'bin'),
          '/usr/bin',
          'relative/bin',
          join(t.dir, 'missing'),
        ].join(':'),
      ),
      [join(t.dir, 'pyenv'), join(t.dir, 'tools', 'bin')],
    );
  } finally {
    t.dispose();
  }
});

test('verify: an unsandboxed run or credit is E_SANDBOX_UNAVAILABLE unless the policy says "none"', () => {
  const base = { runner_job: 'r', digest: 'ab'.repeat(32), prev_sha256: 'cd'.repeat(32), at: '2026-01-01T00:00:00Z' };
  const journal: JournalEvent[] = [
    { ...base, seq: 1, type: 'seal' },
    { ...base, seq: 2, type: 'run-start', command: ['t'], sandbox: 'bwrap' },
    { ...base, seq: 3, type: 'run-end', exit_code: 0, signal: null, timed_out: false },
    { ...base, seq: 4, type: 'run-start', command: ['t'], sandbox: 'none' },
  ];
  assert.deepEqual(
    checkRunIsolation('bwrap', journal).map((f) => [f.code, f.path]),
    [['E_SANDBOX_UNAVAILABLE', 'review/runner/journal.jsonl#4.sandbox']],
  );
  assert.deepEqual(checkRunIsolation('none', journal), []);
  assert.deepEqual(checkRunIsolation('bwrap', journal.slice(0, 3)), []);
  assert.deepEqual(checkCreditIsolation('bwrap', 'bwrap', 'bwrap'), []);
  assert.deepEqual(checkCreditIsolation('bwrap', 'bwrap', undefined), []);
  assert.deepEqual(
    checkCreditIsolation('bwrap', 'none', 'bwrap').map((f) => f.code),
    ['E_SANDBOX_UNAVAILABLE'],
  );
  assert.match(checkCreditIsolation('bwrap', undefined, undefined)[0]?.detail ?? '', /does not say/);
  assert.deepEqual(
    checkCreditIsolation('bwrap', 'bwrap', 'none').map((f) => f.path),
    ['review/runner/cases.json#sandbox'],
  );
  assert.deepEqual(checkCreditIsolation('none', 'none', 'none'), []);
});
