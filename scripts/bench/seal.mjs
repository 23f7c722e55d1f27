// npm run bench seal: `sealgate seal` against sha256sum, openssl dgst and the single-core
// SHA-256 ceiling (`openssl speed -evp sha256`, 16384-byte column), on three fixture sets
// built in a temporary folder under /tmp: (a) one 1 GiB file, (b) 1 GiB over ~2,000 files
// of mixed sizes, (c) 20,000 files of 4 KiB. Every contender hashes the same files from a
// page cache warmed just before its run; medians of RUNS runs. Peak RSS of the sealgate process via
// /usr/bin/time -f %M. `sealgate seal` runs as users run it: bin/sealgate.js as a program,
// whose launcher line starts Node without NODE_EXTRA_CA_CERTS; `node bin/sealgate.js`, which
// skips the launcher and so pays for the variable, and a run without the variable are
// measured beside it. Also measures what NODE_EXTRA_CA_CERTS costs per Node start.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
  closeSync,
} from 'node:fs';
import { randomFillSync } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUNS = Number(process.env.SEAL_BENCH_RUNS ?? 3);
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const BIN = fileURLToPath(new URL('../../bin/sealgate.js', import.meta.url));

const RECORD = {
  proposal_id: 'p-bench',
  author_job: 'author-job',
  runner_job: '',
  patch_path: 'patches/bench.diff',
  digest_status: 'open',
  logs_present: false,
  logs_after_seal: true,
  log_visibility: 'hidden',
};

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** A deterministic PRNG (mulberry32), so set (b) is the same every run. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const block = randomFillSync(Buffer.allocUnsafe(16 * MiB));

function writeFile(path, size) {
  const fd = openSync(path, 'w');
  let left = size;
  let off = (size * 7919) % block.length;
  while (left > 0) {
    const n = Math.min(left, block.length - off);
    writeSync(fd, block, off, n);
    left -= n;
    off = 0;
  }
  closeSync(fd);
}

function makeRepo(root, name) {
  const dir = join(root, name);
  mkdirSync(join(dir, 'fixtures'), { recursive: true });
  mkdirSync(join(dir, 'review'), { recursive: true });
  return dir;
}

function resetSeal(dir) {
  rmSync(join(dir, 'review', 'runner'), { recursive: true, force: true });
  writeFileSync(join(dir, 'review', 'proposal.json'), JSON.stringify(RECORD, null, 2) + '\n');
}

function buildSets(root) {
  const sets = [];
  // (a) one 1 GiB file
  {
    const dir = makeRepo(root, 'a');
    writeFile(join(dir, 'fixtures', 'big.bin'), GiB);
    sets.push({ name: '(a) one 1 GiB file', dir, files: ['fixtures/big.bin'], bytes: GiB });
  }
  // (b) 1 GiB over 2,000 files, sizes log-uniform from 1 KiB to 8 MiB, scaled to 1 GiB in total
  {
    const dir = makeRepo(root, 'b');
    const rnd = prng(2026);
    const raw = Array.from({ length: 2000 }, () =>
      Math.exp(Math.log(1024) + rnd() * (Math.log(8 * MiB) - Math.log(1024))),
    );
    const scale = GiB / raw.reduce((s, x) => s + x, 0);
    const sizes = raw.map((x) => Math.max(1, Math.floor(x * scale)));
    sizes[0] += GiB - sizes.reduce((s, x) => s + x, 0);
    const files = [];
    sizes.forEach((size, i) => {
      const sub = `d${String(i % 20).padStart(2, '0')}`;
      mkdirSync(join(dir, 'fixtures', sub), { recursive: true });
      const rel = `fixtures/${sub}/f${String(i).padStart(4, '0')}.bin`;
      writeFile(join(dir, rel), size);
      files.push(rel);
    });
    sets.push({ name: '(b) 1 GiB over 2,000 mixed files', dir, files: files.sort(), bytes: GiB });
  }
  // (c) 20,000 files of 4 KiB
  {
    const dir = makeRepo(root, 'c');
    const files = [];
    for (let i = 0; i < 20000; i++) {
      const sub = `d${String(i % 100).padStart(2, '0')}`;
      if (i < 100) mkdirSync(join(dir, 'fixtures', sub), { recursive: true });
      const rel = `fixtures/${sub}/f${String(i).padStart(5, '0')}.bin`;
      const off = (i * 4096) % (block.length - 4096);
      writeFileSync(join(dir, rel), block.subarray(off, off + 4096));
      files.push(rel);
    }
    sets.push({ name: '(c) 20,000 files of 4 KiB', dir, files: files.sort(), bytes: 20000 * 4096 });
  }
  return sets;
}

function timeRun(cmd, args, opts = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * MiB, ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.slice(0, 6).join(' ')} failed (${r.status}): ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

const HAVE_TIME = existsSync('/usr/bin/time');

/** A timed run that also reports CPU seconds (user + sys) when /usr/bin/time is present. */
function timeCpu(cmd, args, opts, scratch) {
  if (!HAVE_TIME) return { ...timeRun(cmd, args, opts), cpuMs: NaN };
  const out = join(scratch, 'time.txt');
  const r = timeRun('/usr/bin/time', ['-f', '%U %S %M', '-o', out, cmd, ...args], opts);
  const [u, sy] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
  return { ...r, cpuMs: (u + sy) * 1000 };
}

function loadavg() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  } catch {
    return '?';
  }
}

/** The command line of one seal: `via` is 'launcher' (bin/sealgate.js run as a program) or 'node' (node bin/sealgate.js). */
function sealArgs(set, k, via) {
  return [
    ...(via === 'node' ? [process.execPath] : []),
    BIN,
    'seal',
    '--repo',
    set.dir,
    '--runner-job',
    `runner-${k}`,
    '--fixtures',
    'fixtures/**',
    '--seed',
    '1',
    '--clock',
    'frozen',
    '--locale',
    'C.UTF-8',
  ];
}

/** One timed `sealgate seal`, with its peak RSS (KiB) from /usr/bin/time, or from a /proc reader as a fallback. */
function runSeal(set, k, env, via = 'launcher') {
  resetSeal(set.dir);
  const rssFile = join(set.dir, '..', 'rss.txt');
  if (HAVE_TIME) {
    const { ms, stdout } = timeRun('/usr/bin/time', ['-f', '%U %S %M', '-o', rssFile, ...sealArgs(set, k, via)], {
      env,
    });
    const [u, sy, rss] = readFileSync(rssFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    return { ms, cpuMs: (u + sy) * 1000, digest: stdout.trim(), rssKiB: rss };
  }
  const [cmd, ...args] = sealArgs(set, k, via);
  const wrapper = `const {spawnSync}=require('node:child_process');const r=spawnSync(${JSON.stringify(cmd)},${JSON.stringify(args)},{stdio:['ignore','inherit','inherit']});process.stderr.write('');require('node:fs').writeFileSync(${JSON.stringify(rssFile)},String(process.resourceUsage().maxRSS));process.exit(r.status??1)`;
  const { ms, stdout } = timeRun(process.execPath, ['-e', wrapper], { env });
  return { ms, cpuMs: NaN, digest: stdout.trim(), rssKiB: Number(readFileSync(rssFile, 'utf8')) };
}

/** openssl speed divides by CPU user time unless `-elapsed` (wall time, so it feels the same load as the runs). */
function ceilingBytesPerSec(elapsed = false) {
  const extra = elapsed ? ['-elapsed'] : [];
  const r = spawnSync('openssl', ['speed', ...extra, '-evp', 'sha256', '-seconds', '2', '-bytes', '16384'], {
    encoding: 'utf8',
  });
  let text = r.stdout;
  if (r.status !== 0 || !/16384 bytes/.test(text))
    text = spawnSync('openssl', ['speed', ...extra, '-evp', 'sha256', '-seconds', '2'], { encoding: 'utf8' }).stdout;
  const lines = text.trim().split('\n');
  const header = lines.find((l) => l.startsWith('type'));
  const row = lines.reverse().find((l) => /^sha256\b/i.test(l));
  if (!header || !row) throw new Error(`cannot parse openssl speed output:\n${text}`);
  const cols = header.trim().split(/\s{2,}/);
  const col = cols.findIndex((c) => c.startsWith('16384'));
  const vals = row
    .trim()
    .split(/\s+/)
    .slice(-(cols.length - 1));
  const v = vals[col - 1];
  if (!v) throw new Error(`no 16384-byte column in:\n${text}`);
  return Number(v.replace(/k$/, '')) * 1000;
}

function fmtMs(ms) {
  return `${ms.toFixed(0).padStart(6)} ms`;
}
function fmtRate(bytes, ms) {
  return `${(bytes / (ms / 1000) / 1e6).toFixed(0).padStart(5)} MB/s`;
}

export async function run() {
  const root = mkdtempSync('/tmp/sealgate-bench-');
  try {
    console.log(`building fixture sets in ${root} ...`);
    const sets = buildSets(root);
    // Write the new 2 GiB out now: otherwise the background writeback of those dirty pages
    // lands in the first timed runs, and the seal's fsync calls wait for it.
    spawnSync('sync', [], { stdio: 'ignore' });
    const ceiling = ceilingBytesPerSec();
    console.log(
      `single-core ceiling (openssl speed -evp sha256, 16384-byte blocks, CPU time): ${(ceiling / 1e6).toFixed(0)} MB/s`,
    );
    console.log(
      `the same in wall time (openssl speed -elapsed), under the current load: ${(ceilingBytesPerSec(true) / 1e6).toFixed(0)} MB/s; load average ${loadavg()}`,
    );
    console.log(
      `runs per contender: ${RUNS} (medians); peak RSS via ${HAVE_TIME ? '/usr/bin/time -f %M' : 'process.resourceUsage() in a wrapper'}\n`,
    );
    const baseEnv = { ...process.env };
    const noCaEnv = { ...process.env };
    delete noCaEnv.NODE_EXTRA_CA_CERTS;
    const summary = [];
    for (const set of sets) {
      // Warm the page cache for every contender alike, before each timed run: this machine's
      // DAMON reclaim pages out page-cache data that has not been read for a few seconds,
      // which would leave part of a 1 GiB set on disk for whichever contender comes later.
      const warm = () => timeRun('cat', set.files, { cwd: set.dir, stdio: ['ignore', 'ignore', 'pipe'] });
      warm();
      const seal = [];
      const sealNoCa = [];
      const sealNode = [];
      const sha = [];
      const ossl = [];
      const cpu = { seal: [], sha: [], ossl: [] };
      const loadBefore = loadavg();
      let rssKiB = 0;
      let digest = '';
      for (let k = 0; k < RUNS; k++) {
        warm();
        const s = runSeal(set, k, baseEnv);
        seal.push(s.ms);
        cpu.seal.push(s.cpuMs);
        rssKiB = Math.max(rssKiB, s.rssKiB);
        digest = s.digest;
        if (baseEnv.NODE_EXTRA_CA_CERTS) {
          warm();
          sealNode.push(runSeal(set, k, baseEnv, 'node').ms);
          warm();
          sealNoCa.push(runSeal(set, k, noCaEnv).ms);
        }
        warm();
        const a = timeCpu('sha256sum', set.files, { cwd: set.dir }, root);
        sha.push(a.ms);
        cpu.sha.push(a.cpuMs);
        warm();
        const o = timeCpu('openssl', ['dgst', '-sha256', ...set.files], { cwd: set.dir }, root);
        ossl.push(o.ms);
        cpu.ossl.push(o.cpuMs);
      }
      // Cross-check: the sealed digest is what the coreutils recipe gives.
      const lines = timeRun('sha256sum', set.files, { cwd: set.dir }).stdout + 'seed=1\nclock=frozen\nlocale=C.UTF-8\n';
      const recipe = spawnSync('sha256sum', [], { input: lines, encoding: 'utf8' }).stdout.split(' ')[0];
      const ceilingMs = (set.bytes / ceiling) * 1000;
      const m = {
        seal: median(seal),
        sealNoCa: sealNoCa.length ? median(sealNoCa) : null,
        sealNode: sealNode.length ? median(sealNode) : null,
        sha: median(sha),
        ossl: median(ossl),
      };
      const cpuText = (xs) => (Number.isNaN(median(xs)) ? '' : `  cpu ${median(xs).toFixed(0)} ms`);
      console.log(
        `${set.name}: ${set.files.length} files, ${(set.bytes / MiB).toFixed(0)} MiB (load average ${loadBefore} before, ${loadavg()} after)`,
      );
      console.log(
        `  sealgate seal (launcher)${fmtMs(m.seal)}  ${fmtRate(set.bytes, m.seal)}  best ${fmtMs(Math.min(...seal))}${cpuText(cpu.seal)}  peak RSS ${(rssKiB / 1024).toFixed(1)} MiB`,
      );
      if (m.sealNode !== null)
        console.log(
          `  node bin/sealgate.js seal (no launcher: pays for NODE_EXTRA_CA_CERTS) ${fmtMs(m.sealNode)}  ${fmtRate(set.bytes, m.sealNode)}  best ${fmtMs(Math.min(...sealNode))}`,
        );
      if (m.sealNoCa !== null)
        console.log(
          `  sealgate seal, no NODE_EXTRA_CA_CERTS ${fmtMs(m.sealNoCa)}  ${fmtRate(set.bytes, m.sealNoCa)}  best ${fmtMs(Math.min(...sealNoCa))}`,
        );
      console.log(
        `  sha256sum            ${fmtMs(m.sha)}  ${fmtRate(set.bytes, m.sha)}  best ${fmtMs(Math.min(...sha))}${cpuText(cpu.sha)}`,
      );
      console.log(
        `  openssl dgst -sha256 ${fmtMs(m.ossl)}  ${fmtRate(set.bytes, m.ossl)}  best ${fmtMs(Math.min(...ossl))}${cpuText(cpu.ossl)}`,
      );
      console.log(`  single-core ceiling  ${fmtMs(ceilingMs)}  ${fmtRate(set.bytes, ceilingMs)}`);
      console.log(`  digest ${digest === recipe ? 'matches' : 'DIFFERS FROM'} the coreutils recipe`);
      // Each case's target, judged on a wall time: `sealgate seal` as users run it in this
      // environment (the judged figure), `node bin/sealgate.js seal` (no launcher, so Node
      // parses NODE_EXTRA_CA_CERTS first; measured below) and the run without the variable.
      const judge = (ms) => {
        const vsCeiling = ceilingMs / ms;
        const vsSha = m.sha / ms;
        if (set.name.startsWith('(a)'))
          return { text: 'throughput >= 0.85 x ceiling', ok: vsCeiling >= 0.85, ratio: vsCeiling, vsCeiling, vsSha };
        if (set.name.startsWith('(b)'))
          return { text: 'throughput > 1.0 x ceiling', ok: vsCeiling > 1, ratio: vsCeiling, vsCeiling, vsSha };
        return {
          text: 'no slower than sha256sum (sha256sum time / seal time >= 1)',
          ok: vsSha >= 1,
          ratio: vsSha,
          vsCeiling,
          vsSha,
        };
      };
      const target = judge(m.seal);
      const rssOk = rssKiB < 100 * 1024;
      const sound = rssOk && digest === recipe;
      console.log(
        `  ratio vs ceiling ${target.vsCeiling.toFixed(2)}, vs sha256sum ${target.vsSha.toFixed(2)}; target ${target.text}: ${target.ok ? 'MET' : 'MISSED'}; RSS < 100 MiB: ${rssOk ? 'MET' : 'MISSED'}`,
      );
      const viaNode = m.sealNode === null ? null : judge(m.sealNode);
      if (viaNode)
        console.log(
          `  node bin/sealgate.js (no launcher): ratio ${viaNode.ratio.toFixed(2)}; target ${viaNode.ok ? 'MET' : 'MISSED'}`,
        );
      const noCa = m.sealNoCa === null ? null : judge(m.sealNoCa);
      if (noCa)
        console.log(
          `  without NODE_EXTRA_CA_CERTS: ratio ${noCa.ratio.toFixed(2)}; target ${noCa.ok ? 'MET' : 'MISSED'}`,
        );
      console.log('');
      summary.push({
        set: set.name,
        ok: target.ok && sound,
        viaNode: viaNode === null ? null : viaNode.ok && sound,
        noCa: noCa === null ? null : noCa.ok && sound,
      });
    }
    // What NODE_EXTRA_CA_CERTS costs each Node start.
    if (process.env.NODE_EXTRA_CA_CERTS) {
      const withCa = [];
      const without = [];
      for (let k = 0; k < 7; k++) {
        withCa.push(timeRun(process.execPath, ['-e', '0'], { env: baseEnv }).ms);
        without.push(timeRun(process.execPath, ['-e', '0'], { env: noCaEnv }).ms);
      }
      console.log(
        `node -e 0: ${median(withCa).toFixed(0)} ms with NODE_EXTRA_CA_CERTS, ${median(without).toFixed(0)} ms without: ${(median(withCa) - median(without)).toFixed(0)} ms per Node start`,
      );
    } else console.log('NODE_EXTRA_CA_CERTS is not set in this environment.');
    const also = (s) =>
      s.noCa === null
        ? ''
        : ` (node bin/sealgate.js, no launcher: ${s.viaNode ? 'MET' : 'MISSED'}; without NODE_EXTRA_CA_CERTS: ${s.noCa ? 'MET' : 'MISSED'})`;
    for (const s of summary) console.log(`${s.ok ? 'MET   ' : 'MISSED'} ${s.set}${also(s)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
