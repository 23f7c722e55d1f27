import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { stampTree } from '../core/times.js';

/** Directories never copied: VCS data, the review tree, byte-code caches; dependency folders are linked instead. */
const SKIP_DIRS = new Set(['.git', '__pycache__', '.pytest_cache', '.hypothesis']);
export const LINK_DIRS = new Set(['node_modules', '.venv', 'venv']);

/**
 * A fresh copy of the runner's pristine tree for one execution (the sealed run, a control, a
 * probe, a mutant): tests never run in the tree the seal, symbols and classifier read.
 * Dependency folders (installed at base by the runner job) are linked from `depsFrom`, the
 * user's repository, read-only in use; the tree's own copies of them are never used.
 */
export interface Workspace {
  readonly root: string;
  dispose(): void;
}

export function makeWorkspace(source: string, parent: string, depsFrom: string = source): Workspace {
  const root = mkdtempSync(join(parent, 'ws-'));
  cpSync(source, root, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => {
      const rel = relative(source, src);
      if (rel === '') return true;
      const name = basename(src);
      if (SKIP_DIRS.has(name) || LINK_DIRS.has(name)) return false;
      return rel !== 'review' && !rel.startsWith(`review${sep}`);
    },
  });
  for (const d of LINK_DIRS) {
    const src = join(depsFrom, d);
    if (existsSync(src) && statSync(src).isDirectory()) symlinkSync(realpathSync(src), join(root, d), 'dir');
  }
  // The copy is made now; its entries get the tree's one time back (core/times.ts), and every
  // run's copy of it keeps that time (cp -a). The links are stamped, never what they point to.
  stampTree(root);
  return { root, dispose: () => rmSync(root, { recursive: true, force: true }) };
}
