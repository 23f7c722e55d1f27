// What signing adds to `sealgate runner` and verifying to `sealgate verify`, on the bundled
// example's real evidence (one real runner job first). Signing: writeRunnerAttestation, in
// process (the runner calls it once at the end). Verifying: whole `sealgate verify` processes
// with and without a trust section, alternating, medians. Target: under 20 ms each.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const BIN = `${root}bin/sealgate.js`;
const runs = Number(process.env.BENCH_RUNS ?? 15);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function run() {
  const { writeRunnerAttestation } = await import(`${root}dist/attest/write.js`);
  const { parsePrivateKeyPem } = await import(`${root}dist/attest/keys.js`);
  const { readConfig } = await import(`${root}dist/config/read.js`);
  const work = mkdtempSync(join(tmpdir(), 'sealgate-bench-attest-'));
  const repo = join(work, 'pricing');
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: work,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@example.invalid',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@example.invalid',
  };
  const sh = (cmd, args, cwd = repo) => {
    const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
    if (r.error) throw r.error;
    return r;
  };
  try {
    cpSync(join(root, 'examples/pricing'), repo, { recursive: true, filter: (p) => !p.includes('/agent') });
    symlinkSync(join(root, 'node_modules'), join(repo, 'node_modules'), 'dir');
    writeFileSync(join(repo, '.gitignore'), 'node_modules\nreview/\njunit.xml\n');
    sh('git', ['init', '-q', '-b', 'main']);
    sh('git', ['add', '-A']);
    sh('git', ['commit', '-q', '-m', 'base']);
    cpSync(join(root, 'examples/pricing/agent/002-bound-tax.diff'), join(repo, 'p.diff'));
    sh(process.execPath, [BIN, 'propose', '--author-job', 'a-1', '--runner-job', 'r-1', '--patch', 'p.diff']);
    sh('git', ['apply', 'p.diff']);
    sh(process.execPath, [BIN, 'keygen', '--out', join(work, 'key')], work);
    const pem = readFileSync(join(work, 'key/key.pub.pem'), 'utf8');
    const key = parsePrivateKeyPem(readFileSync(join(work, 'key/key.pem'), 'utf8'));
    const runner = sh(process.execPath, [
      BIN,
      'runner',
      '--runner-job',
      'r-1',
      '--seed',
      '42',
      '--signing-key',
      join(work, 'key/key.pem'),
    ]);
    console.log(`one real runner job: ${runner.stdout.trim()}`);
    const configPath = join(repo, 'sealgate.config.json');
    const plain = readFileSync(configPath, 'utf8');
    const trusted = `${JSON.stringify({ ...JSON.parse(plain), trust: { runnerKeys: [pem] } }, null, 2)}\n`;
    const config = readConfig(repo);

    const sign = [];
    for (let i = 0; i < runs + 3; i++) {
      const t0 = process.hrtime.bigint();
      const r = writeRunnerAttestation(repo, key, config, '0.1.0');
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (i >= 3) sign.push(ms);
      if (i === 0) console.log(`signed ${r.subjects} evidence files`);
    }
    const now = '2026-12-01T00:00:00Z';
    const verifyOnce = () => {
      const t0 = process.hrtime.bigint();
      const r = sh(process.execPath, [BIN, 'verify', '--now', now]);
      return { ms: Number(process.hrtime.bigint() - t0) / 1e6, code: r.stdout.trim() };
    };
    const without = [];
    const withTrust = [];
    let codes = new Set();
    for (let i = 0; i < runs + 2; i++) {
      writeFileSync(configPath, plain);
      const a = verifyOnce();
      writeFileSync(configPath, trusted);
      const b = verifyOnce();
      codes.add(`${a.code}/${b.code}`);
      if (i >= 2) {
        without.push(a.ms);
        withTrust.push(b.ms);
      }
    }
    const s = median(sign);
    const added = median(withTrust) - median(without);
    console.log(`codes (unsigned policy / trust policy): ${[...codes].join(', ')}`);
    console.log(
      `runner: signing adds ${s.toFixed(1)} ms (median of ${runs}) ${s < 20 ? 'target met' : 'TARGET MISSED'}`,
    );
    console.log(
      `verify: ${median(without).toFixed(1)} ms without trust, ${median(withTrust).toFixed(1)} ms with: adds ${added.toFixed(1)} ms ${added < 20 ? 'target met' : 'TARGET MISSED'}`,
    );
    console.log('(figures on this machine are taken under load by other users; rerun on a quiet machine)');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
