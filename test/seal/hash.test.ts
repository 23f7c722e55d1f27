import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashFiles } from '../../src/seal/hash.js';
import { computeInputs } from '../../src/seal/seal.js';

const BOUND = { tree: 'a'.repeat(40), policy: 'default' };
import { tempDir } from '../helpers/git.js';

const MiB = 1 << 20;
// A first file the main thread takes ~70 ms to hash, longer than a hash worker takes to start
// and claim the next file: tests of the workers' own checks put the bad file second.
const LEAD_BYTES = 96 * MiB;

function sha256sum(dir: string, files: readonly string[]): string[] {
  return execFileSync('sha256sum', ['--', ...files], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * MiB })
    .trim()
    .split('\n')
    .map((l) => l.slice(0, 64));
}

test('hashFiles agrees with sha256sum at every chunk boundary: on the main thread, with one worker and with two', async () => {
  const t = tempDir();
  try {
    // Around one chunk (1 MiB), the overlapped path's threshold (4 MiB), its 8 MiB reads and its ring of two buffers.
    const sizes = [
      0,
      1,
      55,
      64,
      4096,
      65535,
      65536,
      65537,
      3 * 65536 + 7,
      MiB - 1,
      MiB,
      MiB + 1,
      2 * MiB,
      3 * MiB + 5,
      4 * MiB - 1,
      4 * MiB,
      4 * MiB + 1,
      6 * MiB,
      8 * MiB - 1,
      8 * MiB,
      8 * MiB + 1,
      16 * MiB,
      16 * MiB + 1,
      24 * MiB + 5,
    ];
    const files = sizes.map((s, i) => {
      const name = `f${i}.bin`;
      writeFileSync(join(t.dir, name), randomBytes(s));
      return name;
    });
    const expected = sha256sum(t.dir, files);
    assert.deepEqual(await hashFiles(t.dir, files, { workers: 0 }), expected);
    assert.deepEqual(await hashFiles(t.dir, files, { workers: 1 }), expected);
    assert.deepEqual(await hashFiles(t.dir, files, { workers: 2 }), expected);
    assert.deepEqual(await hashFiles(t.dir, [...files].reverse()), [...expected].reverse());
    assert.deepEqual(await hashFiles(t.dir, []), []);
    // One file alone is hashed on the main thread: from 4 MiB on, with 8 MiB reads overlapped on the libuv pool.
    for (const [i, f] of files.entries()) assert.deepEqual(await hashFiles(t.dir, [f]), [expected[i]], f);
  } finally {
    t.dispose();
  }
});

test('a lone large file (hashed on the main thread) agrees with sha256sum; a link to one is refused', async () => {
  const t = tempDir();
  try {
    writeFileSync(join(t.dir, 'big.bin'), randomBytes(41 * MiB + 3)); // five 8 MiB reads and a short one
    symlinkSync(join(t.dir, 'big.bin'), join(t.dir, 'link.bin'));
    assert.deepEqual(await hashFiles(t.dir, ['big.bin']), sha256sum(t.dir, ['big.bin']));
    await assert.rejects(hashFiles(t.dir, ['link.bin']), /link\.bin: is a symbolic link/);
  } finally {
    t.dispose();
  }
});

test('hashFiles refuses a missing file or a link, naming it, on the main thread and on workers', async () => {
  const t = tempDir();
  try {
    writeFileSync(join(t.dir, 'a'), 'a');
    writeFileSync(join(t.dir, 'lead'), Buffer.alloc(LEAD_BYTES));
    symlinkSync('a', join(t.dir, 'link'));
    for (const workers of [0, 2]) {
      // With workers, the main thread is busy with the lead file, so a worker meets the bad one.
      const first = workers === 0 ? 'a' : 'lead';
      await assert.rejects(
        hashFiles(t.dir, [first, 'gone'], { workers }),
        (err: Error & { code?: string }) => err.code === 'E_INPUT_INVALID' && err.message.includes('gone: disappeared'),
      );
      await assert.rejects(
        hashFiles(t.dir, [first, 'link'], { workers }),
        (err: Error & { code?: string }) =>
          err.code === 'E_INPUT_INVALID' && err.message.includes('link: is a symbolic link'),
      );
    }
  } finally {
    t.dispose();
  }
});

// The walk refuses links, but a folder can be swapped for one between the walk and the open;
// the open itself refuses a link only as the last component. hashFiles is given the path the
// walk saw (fixtures/sub/f.bin) after the swap: it must refuse, not hash the file outside.
test(
  'a folder on the path swapped for a link after the walk is refused, small or large, on the main thread and on workers',
  { skip: existsSync('/proc/self/fd') ? false : 'needs /proc/self/fd (Linux)' },
  async () => {
    const t = tempDir();
    const outside = tempDir();
    try {
      mkdirSync(join(outside.dir, 'sub'));
      writeFileSync(join(outside.dir, 'sub', 'f.bin'), 'secret outside the repository\n');
      writeFileSync(join(outside.dir, 'sub', 'big.bin'), randomBytes(5 * MiB));
      mkdirSync(join(t.dir, 'fixtures'));
      writeFileSync(join(t.dir, 'fixtures', 'a.bin'), 'a');
      writeFileSync(join(t.dir, 'fixtures', 'lead.bin'), Buffer.alloc(LEAD_BYTES));
      symlinkSync(join(outside.dir, 'sub'), join(t.dir, 'fixtures', 'sub'));
      for (const workers of [0, 1, 2]) {
        // With workers, the main thread is busy with the lead file, so a worker opens the detour.
        const first = workers === 0 ? 'fixtures/a.bin' : 'fixtures/lead.bin';
        for (const f of ['fixtures/sub/f.bin', 'fixtures/sub/big.bin']) {
          await assert.rejects(
            hashFiles(t.dir, [first, f], { workers }),
            (err: Error & { code?: string }) =>
              err.code === 'E_INPUT_INVALID' && err.message.includes(`${f}: was reached through a symbolic link`),
            `${f}, ${workers} workers`,
          );
          await assert.rejects(
            hashFiles(t.dir, [f], { workers }),
            /reached through a symbolic link/,
            `${f} alone, ${workers} workers`,
          );
        }
      }
      // The same files reached without a link hash as usual (the check refuses only the detour).
      assert.deepEqual(await hashFiles(outside.dir, ['sub/f.bin']), sha256sum(outside.dir, ['sub/f.bin']));
    } finally {
      t.dispose();
      outside.dispose();
    }
  },
);

test('a repository reached through a link is hashed from its real path, not refused', async () => {
  const t = tempDir();
  const links = tempDir();
  try {
    writeFileSync(join(t.dir, 'a'), 'a');
    symlinkSync(t.dir, join(links.dir, 'repo'));
    assert.deepEqual(await hashFiles(join(links.dir, 'repo'), ['a']), sha256sum(t.dir, ['a']));
  } finally {
    t.dispose();
    links.dispose();
  }
});

test('property: the digest changes when any fixture byte, the seed, the clock or the locale changes', async () => {
  const t = tempDir();
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 300 }), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.stringMatching(/^[A-Za-z0-9]{1,12}$/),
        async (contents, pick, delta, seed) => {
          const dir = join(t.dir, `r${Math.random().toString(36).slice(2)}`);
          execFileSync('mkdir', ['-p', join(dir, 'fx')]);
          contents.forEach((c, i) => writeFileSync(join(dir, 'fx', `f${i}.bin`), c));
          const inputs = { seed, clock: 'frozen', locale: 'C.UTF-8' };
          const base = await computeInputs(dir, ['fx/*'], inputs, BOUND);
          assert.notEqual(
            (await computeInputs(dir, ['fx/*'], { ...inputs, seed: seed + '0' }, BOUND)).digest,
            base.digest,
          );
          assert.notEqual(
            (await computeInputs(dir, ['fx/*'], { ...inputs, clock: 'live' }, BOUND)).digest,
            base.digest,
          );
          assert.notEqual((await computeInputs(dir, ['fx/*'], { ...inputs, locale: 'C' }, BOUND)).digest, base.digest);
          const which = pick % contents.length;
          const file = contents[which] as Uint8Array;
          const at = pick % file.length;
          const changed = Uint8Array.from(file);
          changed[at] = ((changed[at] as number) + delta) % 256;
          writeFileSync(join(dir, 'fx', `f${which}.bin`), changed);
          assert.notEqual((await computeInputs(dir, ['fx/*'], inputs, BOUND)).digest, base.digest);
          execFileSync('rm', ['-r', dir]);
        },
      ),
      { numRuns: 12 },
    );
  } finally {
    t.dispose();
  }
});
