import { lstatSync, lutimesSync, readdirSync } from 'node:fs';

/**
 * The one modification time every file and folder of a runner's tree carries, in every run:
 * 2000-01-01T00:00:00Z. A checkout would stamp its files with the moment it was made, and a
 * mutant written into a run's copy with the moment of that run, so a test could read from the
 * clock when in the credit step it runs (and so guess which run is a control or a null mutant).
 * With one fixed time, a judging run and the control differ only in the bytes of the file the
 * mutant changed. (Inode and change times cannot be set; they tell only that a file was
 * written, as its bytes do, and the null mutants cover that.)
 */
export const TREE_TIME = new Date('2000-01-01T00:00:00Z');

/**
 * Set TREE_TIME on `root` and everything below it (links themselves, never their targets).
 * Names are walked as bytes: a file name that is not valid UTF-8 is still found (the seal
 * refuses it later, with its own reason).
 */
export function stampTree(root: string): void {
  const slash = Buffer.from('/');
  const walk = (dir: Buffer): void => {
    for (const d of readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })) {
      const p = Buffer.concat([dir, slash, d.name]);
      if (d.isDirectory()) walk(p);
      lutimesSync(p, TREE_TIME, TREE_TIME);
    }
  };
  if (lstatSync(root).isDirectory()) walk(Buffer.from(root));
  lutimesSync(root, TREE_TIME, TREE_TIME);
}
