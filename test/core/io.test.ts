import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { sha256File } from '../../src/core/io.js';
import { tempDir } from '../helpers/git.js';

const MiB = 1 << 20;
const sha256sum = (dir: string, name: string): string => execFileSync('sha256sum', ['--', name], { cwd: dir, encoding: 'utf8' }).split(' ')[0] as string;

test('sha256File agrees with sha256sum and counts the bytes, around its 1 MiB chunk', () => {
  const t = tempDir();
  try {
    for (const size of [0, 1, MiB - 1, MiB, MiB + 1, 3 * MiB + 17]) {
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
    assert.throws(() => sha256File(join(t.dir, 'link')), (e: NodeJS.ErrnoException) => e.code === 'ELOOP');
  } finally {
    t.dispose();
  }
});
