import { packageRoot } from '../../src/core/package-root.js';
import { findBwrap, readSecrets } from '../../src/sandbox/host.js';
import { openBox, type Box } from '../../src/sandbox/run.js';

/** The box `sealgate run` and `sealgate credit` would open for `repo` with this process's environment. */
export function testBox(repo: string, env: Readonly<Record<string, string | undefined>> = process.env): Box {
  return openBox({
    isolation: 'bwrap',
    bwrap: findBwrap(),
    env,
    secrets: readSecrets(repo, env, packageRoot()),
    path: 'test',
  });
}
