import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { E_PATH_DETOUR, createTemp, sha256File, writeFileAtomic } from '../../src/core/io.js';
import { checkSealFromFiles, parseInputsManifest } from '../../src/verify/manifest.js';
import { tempDir } from '../helpers/git.js';

const MiB = 1 << 20;
const sha256sum = (dir: string, name: string): string =>
  execFileSync('sha256sum', ['--', name], { cwd: dir, encoding: 'utf8' }).split(' ')[0] as string;

test('sha256File agrees with sha256sum and counts the bytes, around its 1 MiB chunk', () => {
  const t = tempDir();
  try {
    // 16 KiB: up to there the JavaScript SHA-256 hashes it (src/core/sha256.ts), node:crypto above.
    for (const size of [0, 1, 16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, MiB - 1, MiB, MiB + 1, 3 * MiB + 17]) {
      writeFileSync(join(t.dir, 'f'), randomBytes(size));
      assert.deepEqual(sha256File(join(t.dir, 'f')), { sha256: sha256sum(t.dir, 'f'), bytes: size }, `size ${size}`);
    }
  } finally {
    t.dispose();
  }
});

test('property: sha256File of any bytes is sha256sum of them', () => {
  const t = tempDir();
  try {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        writeFileSync(join(t.dir, 'p'), bytes);
        return sha256File(join(t.dir, 'p')).sha256 === sha256sum(t.dir, 'p');
      }),
      { numRuns: 40 },
    );
  } finally {
    t.dispose();
  }
});

test('sha256File does not follow a link: it throws ELOOP', () => {
  const t = tempDir();
  try {
    writeFileSync(join(t.dir, 'real'), 'x');
    symlinkSync(join(t.dir, 'real'), join(t.dir, 'link'));
    assert.throws(
      () => sha256File(join(t.dir, 'link')),
      (e: NodeJS.ErrnoException) => e.code === 'ELOOP',
    );
  } finally {
    t.dispose();
  }
});

const procFd = existsSync('/proc/self/fd') ? false : 'needs /proc/self/fd (Linux)';

test(
  'sha256File with realPath refuses a file reached through a linked folder, and hashes it by its real path',
  { skip: procFd },
  () => {
    const t = tempDir();
    const outside = tempDir();
    try {
      mkdirSync(join(outside.dir, 'sub'));
      writeFileSync(join(outside.dir, 'sub', 'f'), 'outside\n');
      symlinkSync(join(outside.dir, 'sub'), join(t.dir, 'sub'));
      const via = join(t.dir, 'sub', 'f');
      // Without realPath only the last component is guarded, so the detour goes through.
      assert.equal(sha256File(via).sha256, sha256sum(join(outside.dir, 'sub'), 'f'));
      assert.throws(
        () => sha256File(via, { realPath: via }),
        (e: NodeJS.ErrnoException) => e.code === E_PATH_DETOUR && e.message.includes(join(outside.dir, 'sub', 'f')),
      );
      const real = join(outside.dir, 'sub', 'f');
      assert.deepEqual(sha256File(real, { realPath: real }), {
        sha256: sha256sum(join(outside.dir, 'sub'), 'f'),
        bytes: 8,
      });
    } finally {
      t.dispose();
      outside.dispose();
    }
  },
);

test(
  'verify: a sealed fixture whose folder became a link is drift, even with the same bytes behind it',
  { skip: procFd },
  async () => {
    const t = tempDir();
    const outside = tempDir();
    try {
      mkdirSync(join(t.dir, 'fixtures'));
      writeFileSync(join(t.dir, 'fixtures', 'a.json'), '{}\n');
      const line = `${sha256sum(join(t.dir, 'fixtures'), 'a.json')}  fixtures/a.json\nseed=1\nclock=live\nlocale=C\ntree=${'a'.repeat(40)}\npolicy=default\n`;
      const bytes = Buffer.from(line);
      const parsed = parseInputsManifest(bytes);
      assert.ok(parsed.ok);
      const digest = createHash('sha256').update(bytes).digest('hex');
      assert.deepEqual(await checkSealFromFiles(t.dir, bytes, parsed.value, digest), []);
      // The same bytes, now outside the repository behind a linked folder.
      cpSync(join(t.dir, 'fixtures'), join(outside.dir, 'fixtures'), { recursive: true });
      rmSync(join(t.dir, 'fixtures'), { recursive: true });
      symlinkSync(join(outside.dir, 'fixtures'), join(t.dir, 'fixtures'));
      const findings = await checkSealFromFiles(t.dir, bytes, parsed.value, digest);
      assert.deepEqual(
        findings.map((f) => [f.code, f.path]),
        [['E_DIGEST_OPEN', 'fixtures/a.json']],
      );
      assert.match(findings[0]?.detail ?? '', /reached through a symbolic link/);
    } finally {
      t.dispose();
      outside.dispose();
    }
  },
);

test('createTemp: a new file each time, never an existing one or a link; writeFileAtomic leaves only the target', () => {
  const t = tempDir();
  try {
    const names = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { tmp, fd } = createTemp(t.dir, 'x.json', 0o600);
      closeSync(fd);
      assert.ok(!names.has(tmp), 'a name was handed out twice');
      names.add(tmp);
      assert.ok(lstatSync(tmp).isFile());
      assert.equal(lstatSync(tmp).mode & 0o777, 0o600);
    }
    // A name planted in advance (a link to elsewhere) is never opened: O_EXCL refuses it.
    const target = join(t.dir, 'victim');
    writeFileSync(target, 'keep');
    for (const n of names) {
      rmSync(n);
      symlinkSync(target, n);
    }
    writeFileAtomic(join(t.dir, 'out.json'), '{}');
    assert.equal(readFileSync(target, 'utf8'), 'keep');
    assert.equal(readFileSync(join(t.dir, 'out.json'), 'utf8'), '{}');
    assert.deepEqual(
      readdirSync(t.dir).filter((f) => f.startsWith('.out.json.')),
      [],
    );
  } finally {
    t.dispose();
  }
});
