import { createRequire } from 'node:module';

/**
 * Node built-in modules that are costly to load and that many commands never use, loaded on
 * first use. node:crypto and node:child_process are not in Node's start-up snapshot: loading
 * each costs a process about 5 ms (with child_process's net and stream modules), a tenth of a
 * `sealgate gate` that needs neither (it hashes short inputs in src/core/sha256.ts and runs
 * no git when given --policy). Types come from `import type`, so nothing loads at import.
 */
let required: NodeJS.Require | null = null;
/** The require of this module, made on first use: in a bundle, import.meta.url costs node:url's first use. */
const load = (id: string): unknown => (required ??= createRequire(import.meta.url))(id);

let cryptoModule: typeof import('node:crypto') | null = null;
export function crypto(): typeof import('node:crypto') {
  cryptoModule ??= load('node:crypto') as typeof import('node:crypto');
  return cryptoModule;
}

/** node:crypto if something has loaded it already, else null (it is not loaded for this). */
export function cryptoIfLoaded(): typeof import('node:crypto') | null {
  return cryptoModule;
}

let childProcessModule: typeof import('node:child_process') | null = null;
export function childProcess(): typeof import('node:child_process') {
  childProcessModule ??= load('node:child_process') as typeof import('node:child_process');
  return childProcessModule;
}

let tomlModule: typeof import('smol-toml') | null = null;
/**
 * smol-toml (a dependency, external to the bundles): loaded only where a TOML file is read
 * (pyproject.toml in a patch, `init` on a Python project), as most commands never read one.
 */
export function toml(): typeof import('smol-toml') {
  tomlModule ??= load('smol-toml') as typeof import('smol-toml');
  return tomlModule;
}
