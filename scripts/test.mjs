// Runs every test/**/*.test.ts with node:test through tsx. Node 20's --test takes no globs
// and silently runs nothing for a folder of .ts files, so the list is explicit.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return d.name === 'fixtures' || d.name === 'node_modules' ? [] : walk(p);
    return d.name.endsWith('.test.ts') ? [p] : [];
  });
}

const only = process.argv.slice(2);
const files = (only.length > 0 ? only : walk('test')).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);
