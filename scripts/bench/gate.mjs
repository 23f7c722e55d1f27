// Cold start of the whole `sealgate gate` process on the spec-trace inputs, against bare
// `node -e 0` in the same run, alternating; with and without NODE_EXTRA_CA_CERTS (which
// costs every Node start the parsing of a CA bundle). `sealgate gate` runs as users run it:
// bin/sealgate.js as a program, whose launcher line starts Node without that variable (and
// restores it for child processes); `node bin/sealgate.js gate`, which skips the launcher, is
// measured too. Target: ratio <= 1.5.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = `${root}acceptance/trace-3-freeze-other-test-allows`;
const BIN = `${root}bin/sealgate.js`;
const gateArgs = [
  'gate',
  '--repo',
  dir,
  '--record',
  `${dir}/record.json`,
  '--credit',
  `${dir}/credit.json`,
  '--freeze',
  `${dir}/freeze.json`,
  '--policy',
  `${dir}/../policy.json`,
  '--now',
  '2026-10-12T12:00:00Z',
];
// The same decision with signatures checked: a trust section in the policy, the runner's
// envelope and the freeze's, both verified (Ed25519 through node:crypto).
const signedDir = `${root}acceptance/sig-freeze-signed-allows`;
const signedArgs = [
  'gate',
  '--repo',
  signedDir,
  '--record',
  `${signedDir}/record.json`,
  '--credit',
  `${signedDir}/credit.json`,
  '--freeze',
  `${signedDir}/freeze.json`,
  '--policy',
  `${signedDir}.policy.json`,
  '--now',
  '2026-10-12T12:00:00Z',
];
const runs = Number(process.env.BENCH_RUNS ?? 40);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function time(cmd, args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stdout}${r.stderr}`);
  return ms;
}

/** `via`: 'launcher' (bin/sealgate.js as a program) or 'node' (node bin/sealgate.js). */
function compare(label, env, via, args = gateArgs) {
  const gate = () => (via === 'node' ? time(process.execPath, [BIN, ...args], env) : time(BIN, args, env));
  const base = [];
  const ours = [];
  for (let i = 0; i < 3; i++) {
    time(process.execPath, ['-e', '0'], env);
    gate();
  }
  for (let i = 0; i < runs; i++) {
    base.push(time(process.execPath, ['-e', '0'], env));
    ours.push(gate());
  }
  const b = median(base);
  const o = median(ours);
  console.log(
    `${label.padEnd(52)} node -e 0 ${b.toFixed(1)} ms   sealgate gate ${o.toFixed(1)} ms   ratio ${(o / b).toFixed(2)}   (${o >= b ? '+' : ''}${(o - b).toFixed(1)} ms)`,
  );
  return o / b;
}

export async function run() {
  const withCa = { ...process.env };
  const withoutCa = { ...process.env };
  delete withoutCa.NODE_EXTRA_CA_CERTS;
  console.log(`gate cold start, ${runs} alternating runs each, medians (target ratio <= 1.5)`);
  const verdict = (label, ratio) =>
    console.log(`${label}: ratio ${ratio.toFixed(2)} ${ratio <= 1.5 ? 'target met' : 'TARGET MISSED'}`);
  if (process.env.NODE_EXTRA_CA_CERTS) {
    verdict(
      'with NODE_EXTRA_CA_CERTS (this environment), sealgate',
      compare('with NODE_EXTRA_CA_CERTS, sealgate gate', withCa, 'launcher'),
    );
    verdict(
      'with NODE_EXTRA_CA_CERTS, node bin/sealgate.js (no launcher)',
      compare('with NODE_EXTRA_CA_CERTS, node bin/sealgate.js gate', withCa, 'node'),
    );
  }
  verdict(
    'without NODE_EXTRA_CA_CERTS, sealgate',
    compare('without NODE_EXTRA_CA_CERTS, sealgate gate', withoutCa, 'launcher'),
  );
  verdict(
    'signed (trust section, two envelopes checked), without NODE_EXTRA_CA_CERTS',
    compare('signed, without NODE_EXTRA_CA_CERTS, sealgate gate', withoutCa, 'launcher', signedArgs),
  );
}
