import { endianness } from 'node:os';

/**
 * The seccomp filter of every sandboxed run: the kernel keyring calls (add_key, request_key,
 * keyctl) fail with EPERM, everything else is allowed. The keyring is not a namespaced resource:
 * a process keeps the session keyring of its parent across bubblewrap's namespaces, and the
 * run's uid maps to the runner's own, so without this a test could read the keys in the
 * runner's session keyring (Kerberos tickets, fscrypt keys, tokens a CI step stored) and leave
 * keys there that the next run (a credit run, a mutant) finds: state that survives the run.
 * (Docker's default profile refuses the same three calls for the same reason.)
 *
 * Classic BPF over `struct seccomp_data` (nr at offset 0, arch at 4), in the host's byte order,
 * as bubblewrap's `--seccomp FD` takes it. Every ABI a process on this host can call the kernel
 * through is listed (x86-64 with its x32 and i386 ABIs, arm64 with arm); a call through any
 * other ABI kills the process, as libseccomp does for an unlisted architecture.
 */

/** AUDIT_ARCH_* values and each ABI's add_key, request_key, keyctl numbers. */
interface Abi {
  readonly arch: number;
  readonly calls: readonly [number, number, number];
  /** x32 calls are the x86-64 numbers with this bit set. */
  readonly x32Bit?: number;
}

const X86_64: Abi = { arch: 0xc000003e, calls: [248, 249, 250], x32Bit: 0x40000000 };
const I386: Abi = { arch: 0x40000003, calls: [286, 287, 288] };
const AARCH64: Abi = { arch: 0xc00000b7, calls: [217, 218, 219] };
const ARM: Abi = { arch: 0x40000028, calls: [309, 310, 311] };
const RISCV64: Abi = { arch: 0xc00000f3, calls: [217, 218, 219] };
const LOONGARCH64: Abi = { arch: 0xc0000102, calls: [217, 218, 219] };
const PPC64LE: Abi = { arch: 0xc0000015, calls: [269, 270, 271] };
const S390X: Abi = { arch: 0x80000016, calls: [278, 279, 280] };

/** The ABIs a process may use on a host of each Node architecture. */
const HOST_ABIS: Readonly<Record<string, readonly Abi[]>> = {
  x64: [X86_64, I386],
  ia32: [I386],
  arm64: [AARCH64, ARM],
  arm: [ARM],
  riscv64: [RISCV64],
  loong64: [LOONGARCH64],
  ppc64: [PPC64LE],
  s390x: [S390X],
};

/** The fd bubblewrap reads the filter from (after stdin, stdout and stderr). */
export const SECCOMP_FD = 3;

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const AND_K = 0x54;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_KILL_PROCESS = 0x80000000;
const RET_EPERM = 0x00050000 | 1;

type Insn = { code: number; jt: number | string; jf: number | string; k: number } | { label: string };

/** The filter for this host (`arch`: a Node `process.arch`), or null where its ABIs are not known here. */
export function keyringFilter(arch: string = process.arch, order: 'BE' | 'LE' = endianness()): Buffer | null {
  const abis = HOST_ABIS[arch];
  if (abis === undefined) return null;
  const prog: Insn[] = [{ code: LD_W_ABS, jt: 0, jf: 0, k: 4 }];
  abis.forEach((abi, i) => prog.push({ code: JEQ_K, jt: `abi${i}`, jf: 0, k: abi.arch }));
  prog.push({ code: RET_K, jt: 0, jf: 0, k: RET_KILL_PROCESS });
  abis.forEach((abi, i) => {
    prog.push({ label: `abi${i}` }, { code: LD_W_ABS, jt: 0, jf: 0, k: 0 });
    if (abi.x32Bit !== undefined) prog.push({ code: AND_K, jt: 0, jf: 0, k: ~abi.x32Bit >>> 0 });
    for (const nr of abi.calls) prog.push({ code: JEQ_K, jt: 'deny', jf: 0, k: nr });
    prog.push({ code: RET_K, jt: 0, jf: 0, k: RET_ALLOW });
  });
  prog.push({ label: 'deny' }, { code: RET_K, jt: 0, jf: 0, k: RET_EPERM });
  // Resolve labels to forward offsets (counted from the next instruction).
  const at = new Map<string, number>();
  const insns: Exclude<Insn, { label: string }>[] = [];
  for (const p of prog) {
    if ('label' in p) at.set(p.label, insns.length);
    else insns.push(p);
  }
  const out = Buffer.alloc(insns.length * 8);
  insns.forEach((p, i) => {
    const jump = (j: number | string): number => {
      if (typeof j === 'number') return j;
      const off = (at.get(j) as number) - i - 1;
      if (off < 0 || off > 255) throw new Error(`seccomp filter: jump to ${j} out of range`);
      return off;
    };
    if (order === 'LE') {
      out.writeUInt16LE(p.code, i * 8);
      out.writeUInt32LE(p.k >>> 0, i * 8 + 4);
    } else {
      out.writeUInt16BE(p.code, i * 8);
      out.writeUInt32BE(p.k >>> 0, i * 8 + 4);
    }
    out.writeUInt8(jump(p.jt), i * 8 + 2);
    out.writeUInt8(jump(p.jf), i * 8 + 3);
  });
  return out;
}
