import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The installed package's root (where package.json names sealgate), from src/, dist/ or the bundle alike. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'sealgate')
      return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the sealgate package root');
    dir = up;
  }
}
