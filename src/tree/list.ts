import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every regular file under a checked-out tree, as POSIX paths relative to it, sorted. Links are not followed. */
export function listTreeFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix === '' ? d.name : `${prefix}/${d.name}`;
      if (d.isDirectory()) walk(join(dir, d.name), rel);
      else if (d.isFile()) out.push(rel);
    }
  };
  walk(root, '');
  return out.sort();
}
