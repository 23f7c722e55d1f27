import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bindRecord, git, makeRepo, tempDir } from '../helpers/git.js';

// The built CLI as users run it: bin/sealgate.js compiling the CommonJS bundles in dist/bundle,
// each with the V8 code cache the build put at its end (docs/decisions.md, "Code cache"; a
// cache beside a bundle is never read: test/adversarial/code-cache-forgery.test.ts). These
// need the build (npm test builds first).
const root = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLES = join(root, 'dist', 'bundle');
const built = existsSync(join(BUNDLES, 'all.cjs'));
const skip = built ? false : 'no build in dist/ (run npm run build first)';
const require = createRequire(import.meta.url);
interface Split {
  source: Buffer;
  cachedData: Buffer | undefined;
  cacheVersion: string | null;
}
const { OWN_BUNDLE, loadBundle, splitBundle } = require('../../bin/sealgate.js') as {
  OWN_BUNDLE: Set<string>;
  loadBundle: (name: string) => { script: { cachedDataRejected?: boolean } };
  splitBundle: (bytes: Buffer) => Split;
};
const NAMES = ['all', ...OWN_BUNDLE];

/** A private copy of bin/ and dist/bundle/ (node_modules linked), to tamper with. */
function copyOfCli(): { bin: string; bundles: string; dispose: () => void } {
  const t = tempDir('sealgate-bundle-');
  cpSync(join(root, 'bin'), join(t.dir, 'bin'), { recursive: true });
  cpSync(BUNDLES, join(t.dir, 'dist', 'bundle'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(t.dir, 'node_modules'), 'dir');
  return { bin: join(t.dir, 'bin', 'sealgate.js'), bundles: join(t.dir, 'dist', 'bundle'), dispose: t.dispose };
}

const cli = (bin: string, args: string[], cwd = root) =>
  spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
  });
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const otherVersion = version.replace(/\d/g, (d) => String((Number(d) + 1) % 10));

/** The bundle file with its source changed by `edit` (same length) and its cache part as it was. */
function editSource(file: string, edit: (text: string) => string): void {
  const bytes = readFileSync(file);
  const { source } = splitBundle(bytes);
  const text = source.toString('latin1');
  const changed = Buffer.from(edit(text), 'latin1');
  assert.equal(changed.length, source.length, 'the edit keeps the length');
  writeFileSync(file, Buffer.concat([changed, bytes.subarray(source.length)]));
}

test(
  'every bundle the CLI loads carries its code cache at its own end, made by this Node, and V8 takes it; no cache file beside one',
  { skip },
  () => {
    for (const name of NAMES) {
      const bytes = readFileSync(join(BUNDLES, `${name}.cjs`));
      const split = splitBundle(bytes);
      assert.equal(split.cacheVersion, process.versions.v8, `${name}: a cache made by this V8`);
      assert.ok(split.cachedData !== undefined && split.cachedData.length > 1000, `${name}: a cache of some size`);
      // The source part is the JavaScript esbuild wrote: ASCII, ending with the source map line.
      assert.match(split.source.toString('latin1'), /\n\/\/# sourceMappingURL=[a-z-]+\.cjs\.map\n$/);
      assert.equal(loadBundle(name).script.cachedDataRejected, false, `${name}: V8 refused the cache`);
      assert.equal(existsSync(join(BUNDLES, `${name}.cjs.cache`)), false, `${name}: a cache file beside the bundle`);
    }
    // The workers are loaded by Node itself, from their source alone.
    for (const worker of ['parse-worker', 'valid-worker'])
      assert.equal(splitBundle(readFileSync(join(BUNDLES, `${worker}.cjs`))).cacheVersion, null, worker);
  },
);

test(
  'a bundle without its cache, or with one made by another V8, runs its source bytes as they are now',
  { skip },
  () => {
    const c = copyOfCli();
    try {
      const file = join(c.bundles, 'all.cjs');
      const bytes = readFileSync(file);
      const { source } = splitBundle(bytes);
      assert.ok(source.toString('latin1').includes(`"${version}"`), 'the version literal is in the bundle');
      // 1. The cache cut off (a build with SEALGATE_CODE_CACHE=0 looks the same): the source compiles.
      writeFileSync(file, source);
      editSource(file, (t) => t.replace(`"${version}"`, `"${otherVersion}"`));
      let r = cli(c.bin, ['--version']);
      assert.equal(r.stdout, `${otherVersion}\n`, r.stderr);
      assert.equal(r.status, 0);
      // 2. The cache kept, but marked as made by another V8 (same length): it is not even given to
      // V8, so the edited literal shows; had the cache been used, the old bytecode would print the old version.
      const other = process.versions.v8.replace(/\d/, (d) => String((Number(d) + 1) % 10));
      const head = `//# sealgate-code-cache v1 ${process.versions.v8} `;
      const at = bytes.indexOf(head, source.length - 1, 'latin1');
      assert.equal(at, source.length);
      const marked = Buffer.from(bytes);
      marked.write(`//# sealgate-code-cache v1 ${other} `, at, 'latin1');
      writeFileSync(file, marked);
      editSource(file, (t) => t.replace(`"${version}"`, `"${otherVersion}"`));
      assert.equal(splitBundle(readFileSync(file)).cachedData, undefined);
      r = cli(c.bin, ['--version']);
      assert.equal(r.stdout, `${otherVersion}\n`, r.stderr);
      // The control: the same edit under this V8's own cache runs the cached bytecode, the old literal.
      writeFileSync(file, bytes);
      editSource(file, (t) => t.replace(`"${version}"`, `"${otherVersion}"`));
      r = cli(c.bin, ['--version']);
      assert.equal(r.stdout, `${version}\n`, 'the cache is what runs when it is there');
    } finally {
      c.dispose();
    }
  },
);

test(
  "a cache V8 refuses (another bundle's, spliced in with a correct footer) leaves the bundle running from its source",
  { skip },
  () => {
    const c = copyOfCli();
    try {
      const all = readFileSync(join(c.bundles, 'all.cjs'));
      const gate = splitBundle(readFileSync(join(c.bundles, 'gate.cjs')));
      const { withCache } = require('../../bin/sealgate.js') as { withCache: (source: Buffer, data: Buffer) => Buffer };
      writeFileSync(join(c.bundles, 'all.cjs'), withCache(splitBundle(all).source, gate.cachedData as Buffer));
      const r = cli(c.bin, ['--version']);
      assert.equal(r.stdout, `${version}\n`, r.stderr);
      assert.equal(r.status, 0);
    } finally {
      c.dispose();
    }
  },
);

test(
  'a damaged cache part (its length or its footer wrong) is E_INTERNAL with a reason, never a guess at where the source ends',
  { skip },
  () => {
    const c = copyOfCli();
    try {
      const file = join(c.bundles, 'gate.cjs');
      const bytes = readFileSync(file);
      const damaged: [string, Buffer][] = [
        [
          'a byte cut from the cache',
          Buffer.concat([bytes.subarray(0, bytes.length - 60), bytes.subarray(bytes.length - 59)]),
        ],
        [
          'the footer pointing elsewhere',
          Buffer.concat([
            bytes.subarray(0, bytes.length - 3),
            Buffer.from(String((Number(String.fromCharCode(bytes[bytes.length - 3] as number)) + 1) % 10)),
            bytes.subarray(bytes.length - 2),
          ]),
        ],
        [
          "the footer's offset not digits",
          Buffer.concat([bytes.subarray(0, bytes.length - 3), Buffer.from('x'), bytes.subarray(bytes.length - 2)]),
        ],
      ];
      for (const [what, b] of damaged) {
        assert.notDeepEqual(b, bytes, what);
        writeFileSync(file, b);
        const r = cli(c.bin, ['gate', '--help']);
        assert.equal(r.stdout, 'E_INTERNAL\n', `${what}: ${r.stdout}${r.stderr}`);
        assert.equal(r.status, 3);
        assert.match(r.stderr, /code cache at the end of the bundle does not match its footer/, what);
      }
    } finally {
      c.dispose();
    }
  },
);

test('a missing bundle is E_INTERNAL with exit 3 and a reason, never a silent success', { skip }, () => {
  const c = copyOfCli();
  try {
    rmSync(join(c.bundles, 'gate.cjs'));
    const r = cli(c.bin, ['gate', '--help']);
    assert.equal(r.stdout, 'E_INTERNAL\n');
    assert.equal(r.status, 3);
    assert.match(r.stderr, /cannot load the CLI bundle .*npm run build/);
  } finally {
    c.dispose();
  }
});

test(
  'the built CLI loads tree-sitter (a Python patch) and hashes on worker threads (a 100-file seal)',
  { skip },
  () => {
    const bin = join(root, 'bin', 'sealgate.js');
    const repo = makeRepo({ 'a.py': 'def f(x):\n    return x\n' });
    const t = tempDir();
    try {
      writeFileSync(join(repo.dir, 'a.py'), 'def f(x):\n    return x + 1\n');
      writeFileSync(join(t.dir, 'p.diff'), git(repo.dir, 'diff'));
      git(repo.dir, 'checkout', '--', 'a.py');
      const sym = cli(bin, [
        'symbols',
        '--repo',
        repo.dir,
        '--patch',
        join(t.dir, 'p.diff'),
        '--out',
        join(t.dir, 'changed.json'),
      ]);
      assert.equal(sym.status, 0, sym.stdout + sym.stderr);
      assert.deepEqual(
        (JSON.parse(readFileSync(join(t.dir, 'changed.json'), 'utf8')) as { changed: string[] }).changed,
        ['a.py::f'],
      );

      mkdirSync(join(repo.dir, 'fixtures'));
      for (let i = 0; i < 100; i++)
        writeFileSync(join(repo.dir, 'fixtures', `f${String(i).padStart(3, '0')}.txt`), `fixture ${i}\n`.repeat(i + 1));
      mkdirSync(join(repo.dir, 'review'));
      // The fixtures arrive through the recorded patch: the runner hashes its own tree.
      const record = {
        proposal_id: 'p-1',
        author_job: 'author-1',
        runner_job: 'runner-1',
        patch_path: 'patches/p.diff',
        digest_status: 'open',
        logs_present: false,
        logs_after_seal: true,
        log_visibility: 'hidden',
      };
      writeFileSync(join(repo.dir, 'review', 'proposal.json'), JSON.stringify(record, null, 2) + '\n');
      bindRecord(repo.dir, 'review/proposal.json', 'patches/p.diff');
      const seal = cli(bin, [
        'seal',
        '--repo',
        repo.dir,
        '--runner-job',
        'runner-1',
        '--fixtures',
        'fixtures/**',
        '--seed',
        '7',
        '--clock',
        'live',
        '--locale',
        'C',
      ]);
      assert.equal(seal.status, 0, seal.stdout + seal.stderr);
      // The spec's recipe, with coreutils alone, gives the same inputs file.
      const expected = execFileSync(
        'sh',
        ['-c', 'find fixtures -type f | LC_ALL=C sort | xargs sha256sum; printf "seed=7\\nclock=live\\nlocale=C\\n"'],
        { cwd: repo.dir, encoding: 'utf8' },
      );
      const inputs = readFileSync(join(repo.dir, 'review', 'runner', 'inputs.sha256'), 'utf8');
      assert.equal(inputs.replace(/tree=[0-9a-f]{40}\npolicy=default\n$/, ''), expected);
    } finally {
      repo.dispose();
      t.dispose();
    }
  },
);
