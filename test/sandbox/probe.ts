import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Config } from '../../src/config/schema.js';
import { normaliseConfig } from '../../src/config/schema.js';
import { packageRoot } from '../../src/core/package-root.js';
import { openCreditBox } from '../../src/credit/runs/setup.js';
import { makeScratch, makeWorkspace, runTestCommand, type TestRun } from '../../src/credit/runs/test-run.js';
import { pinnedEnv } from '../../src/runner/env.js';
import { bindRecord } from '../helpers/git.js';
import { ENV, RUNNER, makeSealedRepo, type SealedRepo } from '../runner/helpers.js';

/**
 * A throwaway project whose "test suite" is an attack: it probes and tries to write every
 * path the sandbox must keep from it, dumps its environment, dials a loopback port opened
 * outside, leaves files behind, starts daemons, and reports its working directory as the
 * name of its one JUnit case. The tests read what it printed from outside and check the
 * host's files themselves.
 */

/** Token-like variables set in the runner's environment; none may reach a test or a log. */
export const TOKENS: Readonly<Record<string, string>> = {
  GITHUB_TOKEN: 'ghs_sealgateTokenGithub0001',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'sealgateTokenOidc0002',
  ACTIONS_RUNTIME_TOKEN: 'sealgateTokenRuntime0003',
  NPM_TOKEN: 'npm_sealgateTokenNpm0004',
  NODE_AUTH_TOKEN: 'sealgateTokenNodeAuth0005',
  AWS_SECRET_ACCESS_KEY: 'sealgateTokenAws0006',
  SSH_AUTH_SOCK: '/tmp/sealgate-ssh-agent-0007/agent.1',
  SEALGATE_SIGNING_KEY: 'sealgateTokenSigning0008',
};

/** Daemon markers: a `sleep` with a unique duration, found on the host by its command line. */
export const DAEMON_MARK = '7321.5';

export interface Targets {
  /** Host paths the test must not see. */
  readonly hidden: readonly string[];
  /** Host paths (files) the test must not create or change. */
  readonly unwritable: readonly string[];
  readonly port: number;
}

/** The attack script, with the host paths baked in (an agent can guess them too). */
export function attackScript(t: Targets): string {
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  return `#!/bin/sh
probe() { if [ -e "$1" ] || [ -L "$1" ]; then echo "SEEN $1"; else echo "hidden $1"; fi; }
${t.hidden.map((p) => `probe ${q(p)}`).join('\n')}
${t.hidden.map((p) => `cat ${q(p)} >/dev/null 2>&1 && echo "READ ${p}"`).join('\n')}
${t.unwritable.map((p) => `( echo pwned >> ${q(p)} ) 2>/dev/null && echo "WROTE ${p}" || echo "refused ${p}"`).join('\n')}
( echo pwned >> node_modules/dep/index.js ) 2>/dev/null && echo "WROTE node_modules" || echo "refused node_modules"
( echo pwned > node_modules/new-file ) 2>/dev/null && echo "WROTE node_modules/new-file" || echo "refused node_modules/new-file"
echo pwned >> src.txt
for p in /tmp/left-behind "$HOME/left-behind" ./left-behind; do probe "$p"; done
echo x > /tmp/left-behind; echo x > "$HOME/left-behind"; echo x > ./left-behind
echo "uid=$(id -u) gid=$(id -g)"
echo "ENV-BEGIN"; env; echo "ENV-END"
node -e 'const s=require("net").connect(${t.port},"127.0.0.1");s.on("connect",()=>{console.log("CONNECTED");process.exit(0)});s.on("error",(e)=>{console.log("noconnect "+e.code);process.exit(0)})'
# A daemon in its own session, and one that double-forks away from its parent.
setsid sh -c 'exec sleep ${DAEMON_MARK}1' </dev/null >/dev/null 2>&1 &
( setsid sh -c '( exec sleep ${DAEMON_MARK}2 ) &' </dev/null >/dev/null 2>&1 & )
printf '<testsuite name="probe"><testcase classname="probe" name="cwd %s"/></testsuite>\\n' "$(pwd)" > junit.xml
exit 0
`;
}

/** A loopback server outside the sandbox that counts the connections it gets. */
export async function loopback(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server: Server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return { port, connections: () => n, close: () => new Promise((r) => server.close(() => r())) };
}

/** Host pids of the probe's daemons still alive. */
export function daemons(): number[] {
  const r = spawnSync('pgrep', ['-f', `sleep ${DAEMON_MARK}`], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).map(Number);
}

/** SHA-256 over every file under `dir` (paths and bytes), .git and review/ left out. */
export function treeHash(dir: string, skip: readonly string[] = ['.git', 'review']): string {
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (skip.includes(rel)) continue;
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(p);
      else if (st?.isFile()) h.update(`${rel}\0`).update(readFileSync(p)).update('\0');
    }
  };
  walk(dir);
  return h.digest('hex');
}

export interface Project {
  readonly repo: SealedRepo;
  readonly targets: Targets;
  readonly cache: string;
  readonly server: Awaited<ReturnType<typeof loopback>>;
  /** The runner's environment: the usual one, its cache, and the tokens. */
  readonly env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * The throwaway project, sealed, with a dependency folder, the attack as its test command, and
 * a sealgate cache beside it. `unsandboxed`: the control, whose writes would land for real, so
 * it only writes inside the project and probes (reads) the rest.
 */
export async function makeProject(config: Record<string, unknown> = {}, unsandboxed = false): Promise<Project> {
  const server = await loopback();
  const base = mkdtempSync(join(tmpdir(), 'sealgate-probe-'));
  const cache = join(base, 'cache');
  mkdirSync(join(cache, 'sealgate', 'credit'), { recursive: true });
  writeFileSync(join(cache, 'sealgate', 'credit', 'entry.json'), '{}\n');
  const repo = await makeSealedRepo({
    files: {
      'src.txt': 'source\n',
      'node_modules/dep/index.js': 'module.exports = 1;\n',
      '.git/config': '[remote "origin"]\n\turl = https://x-access-token:ghs_inconfig@example.invalid/r\n',
    },
    config: { test: { command: ['sh', 'attack.sh'], junit: ['junit.xml'] }, ...config },
    seal: false, // the attack names repo.dir, so it goes into the recorded patch first, then the seal binds that tree
  });
  const pkg = packageRoot();
  const targets: Targets = {
    hidden: [
      repo.dir,
      join(repo.dir, 'review'),
      join(repo.dir, 'review', 'runner', 'logs'),
      join(repo.dir, 'review', 'runner', 'journal.jsonl'),
      join(repo.dir, '.git', 'config'),
      pkg,
      join(pkg, 'package.json'),
      join(pkg, 'bin', 'sealgate.js'),
      join(pkg, 'dist'),
      join(cache, 'sealgate'),
      '/tmp/sealgate-ssh-agent-0007',
      '/root/.ssh',
    ],
    unwritable: [
      join(repo.dir, 'review', 'pwned'),
      join(repo.dir, 'review', 'proposal.json'),
      join(repo.dir, 'pwned'),
      join(cache, 'sealgate', 'credit', 'entry.json'),
      ...(unsandboxed ? [] : [join(pkg, 'pwned'), join(pkg, 'bin', 'sealgate.js')]),
    ],
    port: server.port,
  };
  // The attack is the project's test: part of the runner's tree (base + recorded patch), bound
  // by the record and the seal, not a file dropped into the work tree after the seal.
  repo.write('attack.sh', attackScript(targets));
  bindRecord(repo.dir, 'review/proposal.json', 'patches/1.diff');
  const seal = await repo.cli('seal', '--runner-job', RUNNER);
  if (seal.exit !== 0) throw new Error(`seal failed: ${seal.stdout}${seal.stderr}`);
  return {
    repo,
    targets,
    cache,
    server,
    env: { ...ENV, HOME: base, XDG_CACHE_HOME: cache, ...TOKENS },
    async dispose() {
      for (const pid of daemons()) process.kill(pid, 'SIGKILL');
      await server.close();
      repo.dispose();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** What one run of the attack printed, read back. */
export interface Observed {
  readonly out: string;
  readonly lines: readonly string[];
  readonly env: readonly string[];
  readonly cwd: string | null;
}

export function observe(out: string, cwdFromCase: string | null): Observed {
  const lines = out.split('\n');
  const a = lines.indexOf('ENV-BEGIN');
  const b = lines.indexOf('ENV-END');
  return { out, lines, env: a >= 0 && b > a ? lines.slice(a + 1, b) : [], cwd: cwdFromCase };
}

/** `sealgate run` on the project, as the runner job; what the attack printed (from the hidden store). */
export async function viaRun(p: Project): Promise<Observed & { stdout: string; stderr: string }> {
  const r = await runCliIn(p, ['run', '--runner-job', RUNNER]);
  if (r.exit !== 0) throw new Error(`sealgate run failed: ${r.stdout}${r.stderr}`);
  const results = JSON.parse(p.repo.read('review/runner/results.json')) as { cases: { name: string }[]; cwd: string };
  const name = results.cases[0]?.name ?? null;
  return {
    ...observe(p.repo.read('review/runner/logs/stdout.log'), name?.startsWith('cwd ') ? name.slice(4) : null),
    stdout: r.stdout,
    stderr: r.stderr,
  };
}

/** The credit step's run: its box (openCreditBox), its workspace and its chokepoint (runTestCommand), as `sealgate credit` builds them. */
export async function viaCredit(
  p: Project,
  config: Config = readProjectConfig(p),
): Promise<Observed & { run: TestRun }> {
  const scratch = makeScratch();
  try {
    const box = openCreditBox({
      repo: p.repo.dir,
      config,
      env: p.env,
      cacheDir: join(p.cache, 'sealgate', 'credit'),
      clock: { kind: 'live' },
    });
    const env = {
      ...pinnedEnv(
        p.env,
        { seed: '1234', clock: 'live', locale: 'C.UTF-8', digest: 'ab'.repeat(32) },
        { kind: 'live' },
        config.test.env,
      ),
      PYTHONDONTWRITEBYTECODE: '1',
    };
    const ws = makeWorkspace(p.repo.dir, scratch.dir);
    const logDir = join(scratch.dir, 'log');
    mkdirSync(logDir);
    const run = await runTestCommand(ws.root, ['sh', 'attack.sh'], ['junit.xml'], env, 60_000, logDir, box);
    const name = run.cases[0]?.name ?? null;
    return {
      ...observe(
        existsSync(join(logDir, 'stdout.log')) ? readFileSync(join(logDir, 'stdout.log'), 'utf8') : '',
        name?.startsWith('cwd ') ? name.slice(4) : null,
      ),
      run,
    };
  } finally {
    scratch.dispose();
  }
}

export function readProjectConfig(p: Project): Config {
  return normaliseConfig(JSON.parse(p.repo.read('sealgate.config.json')) as Parameters<typeof normaliseConfig>[0]);
}

async function runCliIn(p: Project, argv: string[]) {
  const { runCli } = await import('../helpers/cli.js');
  return runCli(argv, { cwd: p.repo.dir, env: p.env });
}

export { runCliIn };
