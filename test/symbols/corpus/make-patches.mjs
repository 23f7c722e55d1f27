// Regenerates each scenario's patch.diff from its base/ and after/ trees (files carry an extra
// ".txt" suffix so that neither tsc nor the test runner picks them up). The expected.json files
// are written by hand from the patches and are never generated.
//   node test/symbols/corpus/make-patches.mjs [scenario ...]
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: tmpdir(),
};
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env, maxBuffer: 1 << 28 });

function stripSuffix(dir) {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) stripSuffix(p);
    else if (e.endsWith('.txt')) renameSync(p, p.slice(0, -4));
  }
}

function tree(dir, src) {
  for (const e of readdirSync(dir)) if (e !== '.git') rmSync(join(dir, e), { recursive: true, force: true });
  if (existsSync(src)) {
    cpSync(src, dir, { recursive: true });
    stripSuffix(dir);
  }
}

const wanted = process.argv.slice(2);
for (const name of readdirSync(here).sort()) {
  const sc = join(here, name);
  if (!statSync(sc).isDirectory() || (wanted.length > 0 && !wanted.includes(name))) continue;
  const dir = mkdtempSync(join(tmpdir(), 'corpus-'));
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'core.autocrlf', 'false');
  tree(dir, join(sc, 'base'));
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'base');
  tree(dir, join(sc, 'after'));
  const modes = join(sc, 'modes.json');
  if (existsSync(modes))
    for (const [p, m] of Object.entries(JSON.parse(readFileSync(modes, 'utf8'))))
      chmodSync(join(dir, p), Number.parseInt(m, 8));
  git(dir, 'add', '-A');
  const patch = git(dir, 'diff', '--cached', '--binary', '-M', 'HEAD');
  writeFileSync(join(sc, 'patch.diff'), patch);
  rmSync(dir, { recursive: true, force: true });
  console.log(`${name}: ${patch.length} bytes`);
}
