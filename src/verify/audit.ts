import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Policy } from '../policy/read.js';
import { buildRecordTree, type RunnerTree } from '../tree/build.js';
import { checkTreeMatch } from '../tree/plan.js';
import type { SandboxKind } from '../config/schema.js';
import type { DecisionCode } from '../core/codes.js';
import { readDocument } from '../core/document.js';
import { readRecordBytes, recordBaseOf } from '../record/file.js';
import { SealgateError, type Finding } from '../core/errors.js';
import { digestsEqual, sameJob } from '../core/ids.js';
import { fileExists, readBoundedFile, sha256File, MAX_INPUT_BYTES } from '../core/io.js';
import { LAYOUT, layoutPath } from '../core/layout.js';
import type { Instant } from '../core/time.js';
import { propertyCredit, type PropertyCredit } from '../credit/score/rule.js';
import { CaseFileSchema, type CaseFile } from '../credit/schema.js';
import type { Freeze } from '../freeze/schema.js';
import { decide, type Decision, type GateInputs } from '../gate/decide.js';
import { parseGateFiles, readGateFiles } from '../gate/read.js';
import { describeSignatures, readSignatureState, type SignatureState } from '../attest/read.js';
import { collectEvidence } from '../attest/evidence.js';
import { deriveLogState, readJournal, type JournalEvent, type LogState } from '../store/journal.js';
import { verifySeal } from '../seal/seal.js';
import { ChangedSchema, type Changed } from '../symbols/schema.js';
import { checkSealFromFiles, parseInputsManifest, type InputsManifest } from './manifest.js';

/** The audit's stages, in the order `verify` runs them. */
export type AuditStage = 'attest' | 'seal' | 'patch' | 'journal' | 'credit' | 'gate';

export interface AuditStep {
  readonly stage: AuditStage;
  readonly findings: readonly Finding[];
  /** One line for a reviewer: what was checked and what came out. */
  readonly summary: string;
}

/** Everything the audit read and concluded: the input of every report. */
export interface Audit {
  readonly code: DecisionCode;
  readonly decisive: Finding | null;
  /** Every finding, in the order that decided the code. */
  readonly findings: readonly Finding[];
  readonly steps: readonly AuditStep[];
  readonly inputs: GateInputs;
  readonly decision: Decision;
  readonly changed: Changed | null;
  readonly cases: CaseFile | null;
  readonly journal: readonly JournalEvent[] | null;
  readonly logState: LogState | null;
  readonly manifest: InputsManifest | null;
  readonly recomputed: PropertyCredit | null;
  /** The policy decided under: its digest, where it was read, and the test command it names. */
  readonly policy: { readonly digest: string; readonly source: string; readonly testCommand: readonly string[] | null };
  /** The runner's tree as verify rebuilt it from the base commit and the patch, or null when it could not. */
  readonly tree: { readonly baseCommit: string; readonly treeId: string } | null;
  /** What was signed and checked; `checked: false` when the policy has no trust section. */
  readonly signatures: SignatureState;
}

const JOB_CODES: readonly DecisionCode[] = ['E_JOB_MISSING', 'E_SHARED_JOB'];
/** A patch that touches the policy surface voids what the runner computed under that policy. */
const EARLY_CODES: readonly DecisionCode[] = [...JOB_CODES, 'E_POLICY_CHANGED'];

/**
 * The final code, pure: a signature problem first (when the policy trusts keys, unsigned or
 * forged evidence says nothing about who wrote it), then shared or missing job identity (it
 * voids every other artifact), then a policy-surface change (the runner graded under a policy
 * the patch edits), then the audit's own findings in stage order (seal, patch, journal,
 * credit), then the gate's findings in its precedence. ALLOW only when all are silent.
 */
export function combineAudit(
  decision: Decision,
  steps: readonly AuditStep[],
): { code: DecisionCode; decisive: Finding | null; findings: Finding[] } {
  const signed = steps.filter((s) => s.stage === 'attest').flatMap((s) => s.findings);
  const jobs = decision.findings.filter((f) => JOB_CODES.includes(f.code));
  const policy = decision.findings.filter((f) => f.code === 'E_POLICY_CHANGED');
  const audit = steps.filter((s) => s.stage !== 'gate' && s.stage !== 'attest').flatMap((s) => s.findings);
  const rest = decision.findings.filter((f) => !EARLY_CODES.includes(f.code));
  const findings = [...signed, ...jobs, ...policy, ...audit, ...rest];
  const decisive = findings[0] ?? null;
  return { code: decisive ? decisive.code : 'ALLOW', decisive, findings };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  return sa.size === new Set(b).size && b.every((x) => sa.has(x));
}

const unsandboxed = (path: string, detail: string): Finding => ({
  code: 'E_SANDBOX_UNAVAILABLE',
  path,
  detail: `${detail}, and the base policy does not allow that (sandbox: "none")`,
});

/** Every recorded test run was sandboxed, unless the policy says "none". Pure. */
export function checkRunIsolation(policy: SandboxKind, journal: readonly JournalEvent[]): Finding[] {
  if (policy === 'none') return [];
  return journal.flatMap((e) =>
    e.type === 'run-start' && e.sandbox !== 'bwrap'
      ? [
          unsandboxed(
            `${LAYOUT.journal}#${e.seq}.sandbox`,
            `run-start ${e.seq} records an unsandboxed run ("${e.sandbox}")`,
          ),
        ]
      : [],
  );
}

/** The credit step's runs were sandboxed (credit.json and the case file say so), unless the policy says "none". Pure. */
export function checkCreditIsolation(
  policy: SandboxKind,
  credit: SandboxKind | undefined,
  cases: SandboxKind | undefined,
): Finding[] {
  if (policy === 'none') return [];
  const out: Finding[] = [];
  if (credit !== 'bwrap')
    out.push(
      unsandboxed(
        `${LAYOUT.credit}#sandbox`,
        credit === undefined
          ? 'the credit does not say its runs were sandboxed'
          : `the credit was scored by unsandboxed runs ("${credit}")`,
      ),
    );
  if (cases !== undefined && cases !== 'bwrap')
    out.push(unsandboxed(`${LAYOUT.cases}#sandbox`, `the cases were observed by unsandboxed runs ("${cases}")`));
  return out;
}

/** Credit recomputed from the case file with the spec's rule, compared field by field. Pure. */
export function checkCreditAgainstCases(
  credit: NonNullable<GateInputs['credit']>,
  cases: CaseFile,
  changed: Changed | null,
  sealedDigest: string,
  runnerJob: string | null,
): { recomputed: PropertyCredit; findings: Finding[] } {
  const out: Finding[] = [];
  const bad = (path: string, detail: string): void => void out.push({ code: 'E_CREDIT_UNBOUND', path, detail });
  const recomputed = propertyCredit(
    credit.credit_id,
    cases.changed,
    cases.cases,
    sealedDigest,
    cases.uncreditable ?? [],
  );
  if (changed !== null) {
    if (!sameSet(cases.changed, changed.changed))
      bad(`${LAYOUT.cases}#changed`, `differs from ${LAYOUT.changed}: the case file was scored against other symbols`);
    if (!sameSet(cases.uncreditable ?? [], changed.uncreditable))
      bad(`${LAYOUT.cases}#uncreditable`, `differs from ${LAYOUT.changed}`);
  }
  if (cases.digest !== undefined && !digestsEqual(cases.digest, sealedDigest))
    bad(`${LAYOUT.cases}#digest`, `case file is for digest ${cases.digest}, not the sealed ${sealedDigest}`);
  if (cases.runner_job !== undefined && runnerJob !== null && !sameJob(cases.runner_job, runnerJob))
    bad(`${LAYOUT.cases}#runner_job`, `case file was written by "${cases.runner_job}", not the runner "${runnerJob}"`);
  if (credit.changed !== undefined && !sameSet(credit.changed, cases.changed))
    bad('credit#changed', 'differs from the case file');
  const fields = ['credited', 'test_ids', 'missing', 'tautologies'] as const;
  for (const k of fields) {
    if (!sameSet(credit[k], recomputed[k]))
      bad(`credit#${k}`, `says [${credit[k].join(', ')}], the case file gives [${recomputed[k].join(', ')}]`);
  }
  if (!digestsEqual(credit.digest, sealedDigest))
    bad('credit#digest', `credit is on digest ${credit.digest}, not the sealed ${sealedDigest}`);
  if (credit.pass !== recomputed.pass)
    bad('credit#pass', `says ${String(credit.pass)}, the case file gives ${String(recomputed.pass)}`);
  return { recomputed, findings: out };
}

/** Log store files (relative to the store) with their SHA-256; throws when the store cannot be read. */
function listLogStore(repo: string): Map<string, string> {
  const root = layoutPath(repo, 'logs');
  const out = new Map<string, string>();
  if (!dirExists(root)) return out;
  const walk = (dir: string, prefix: string): void => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${d.name}` : d.name;
      if (d.isDirectory()) walk(join(dir, d.name), rel);
      // Not followed: a link in the store is hashed as a link never is, so it cannot stand in for a log.
      else out.set(rel, d.isFile() ? sha256File(join(dir, d.name)).sha256 : 'not-a-regular-file');
    }
  };
  walk(root, '');
  return out;
}

function dirExists(path: string): boolean {
  try {
    readdirSync(path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    throw err;
  }
}

function readOptionalDocument<T>(repo: string, key: 'changed' | 'cases', read: (path: string) => T): T | null {
  const path = layoutPath(repo, key);
  return fileExists(path) ? read(path) : null;
}

export interface AuditOptions {
  readonly repo: string;
  /** The policy, read at the record's base commit (or a --policy file); its digest must be the sealed one. */
  readonly policy: Policy;
  readonly now: Instant;
  /** The runner's tree when the caller already built it (`sealgate runner`); else rebuilt here. */
  readonly tree?: RunnerTree;
  /** Audit with this freeze instead of review/freeze.json (what `freeze` checks before writing). */
  readonly freeze?: Freeze | null;
  /** The runner's envelope, when not review/runner/attestation.dsse.json. */
  readonly attestation?: string;
}

/**
 * The full audit from the files alone (`sealgate verify`): the runner's tree rebuilt from
 * the base commit and the patch, the seal recomputed over it (tree id, fixtures, policy
 * digest), the patch hash, the journal chain and order, the credit recomputed from the
 * case file, then the gate decision.
 */
export async function auditReview(opts: AuditOptions): Promise<Audit> {
  const { repo, policy, now } = opts;
  const config = policy.config;
  let own: RunnerTree | null = null;
  try {
    return await audit(opts, (t) => (own = t));
  } finally {
    (own as RunnerTree | null)?.dispose();
  }
  async function audit(o: AuditOptions, keep: (t: RunnerTree) => void): Promise<Audit> {
    const freezePath = layoutPath(repo, 'freeze');
    // The record is read once: the base side of mixed policy files (package.json,
    // pyproject.toml) is read at the base these same bytes name.
    const recordPath = layoutPath(repo, 'record');
    const recordBytes = readRecordBytes(recordPath, LAYOUT.record);
    const recordBase = recordBytes === null ? null : recordBaseOf(recordBytes, recordPath);
    const files = readGateFiles({
      record: recordPath,
      credit: layoutPath(repo, 'credit'),
      freeze: opts.freeze === undefined && fileExists(freezePath) ? freezePath : undefined,
      repo,
      ...(recordBytes === null ? {} : { recordBytes }),
      ...(recordBase === null ? {} : { base: recordBase }),
    });
    const parsed = parseGateFiles(files, config, now);
    if (!parsed.ok) throw new SealgateError('E_INPUT_INVALID', parsed.findings);
    const base = parsed.value;
    const changed = readOptionalDocument(repo, 'changed', (p) =>
      readDocument(p, ChangedSchema, 'json', LAYOUT.changed),
    );
    // A test-path file that production imports is production for E_TEST_ONLY too (changed.json
    // is checked against the patch hash below).
    const imported = new Set((changed?.imported_tests ?? []).map((t) => t.path));
    const patchFiles =
      imported.size === 0
        ? base.patchFiles
        : base.patchFiles.map((p) =>
            p.class === 'test' && imported.has(p.path) ? { ...p, class: 'production' as const } : p,
          );
    const inputs: GateInputs = { ...base, patchFiles, ...(opts.freeze === undefined ? {} : { freeze: opts.freeze }) };
    const cases = readOptionalDocument(repo, 'cases', (p) => readDocument(p, CaseFileSchema, 'json', LAYOUT.cases));
    const record = inputs.record;
    const runner = record.runner_job || null;
    const sealedDigest = inputs.runnerFiles.digest ?? record.digest ?? null;
    const steps: AuditStep[] = [];

    // 0. The signatures, over the bytes judged (only when the policy trusts keys). A candidate
    // freeze (what `freeze` checks before it signs) is judged without its own signature.
    const signatures = readSignatureState({
      repo,
      config,
      files,
      inputs,
      expect: { policy_digest: policy.digest },
      ...(opts.attestation === undefined ? {} : { attestation: opts.attestation }),
      ...(opts.freeze === undefined ? {} : { freezeBytes: null }),
    });
    steps.push({ stage: 'attest', findings: signatures.findings, summary: describeSignatures(signatures) });
    // Evidence hygiene, signed or not: no evidence file or folder is a link or reached through
    // one (the signature check above already walked them when it ran).
    if (!signatures.checked) collectEvidence(repo, record.patch_path);

    // 1. The seal, recomputed from the current bytes of the tree rebuilt from base + patch.
    let manifest: InputsManifest | null = null;
    let rebuilt: { baseCommit: string; treeId: string } | null = null;
    {
      const f: Finding[] = [];
      let summary: string;
      const sealed = record.digest_status === 'sealed' && inputs.runnerFiles.status === 'sealed';
      if (!sealed && (record.digest_status === 'sealed' || inputs.runnerFiles.status === 'sealed')) {
        f.push({
          code: 'E_DIGEST_OPEN',
          path: LAYOUT.status,
          detail: `the record says ${record.digest_status} but digest.status says ${inputs.runnerFiles.status ?? '(absent)'}`,
        });
      }
      if (!sealed)
        summary = `not sealed (record: ${record.digest_status}, digest.status: ${inputs.runnerFiles.status ?? 'absent'})`;
      else if (sealedDigest === null || !fileExists(layoutPath(repo, 'inputs'))) {
        f.push({
          code: 'E_DIGEST_OPEN',
          path: LAYOUT.inputs,
          detail: 'sealed, but inputs.sha256 or digest.txt is absent: the digest cannot be recomputed',
        });
        summary = 'sealed status without the files to recompute it';
      } else {
        const bytes = readBoundedFile(layoutPath(repo, 'inputs'), MAX_INPUT_BYTES, LAYOUT.inputs);
        const parsed = parseInputsManifest(bytes);
        if (!parsed.ok) throw new SealgateError('E_INPUT_INVALID', parsed.findings);
        manifest = parsed.value;
        // Without a base commit nothing can be rebuilt; the patch stage rejects that (E_CREDIT_UNBOUND).
        let tree: RunnerTree | null = o.tree ?? null;
        if (tree === null && record.base_commit !== undefined) {
          try {
            tree = buildRecordTree(repo, { checkHash: false });
            keep(tree);
          } catch (err) {
            if (!(err instanceof SealgateError) || err.code !== 'E_INPUT_INVALID') throw err;
            f.push({
              code: 'E_DIGEST_OPEN',
              path: LAYOUT.inputs,
              detail: `the runner's tree cannot be rebuilt from the base commit and the patch on disk: ${err.message}`,
            });
          }
        }
        if (tree !== null) {
          rebuilt = { baseCommit: tree.baseCommit, treeId: tree.treeId };
          // Fixture findings first: they name the drifted file; then the tree and the policy.
          f.push(...(await checkSealFromFiles(tree.root, bytes, manifest, sealedDigest)));
          const treeDrift = checkTreeMatch(manifest.tree, tree.treeId);
          if (treeDrift) f.push(treeDrift);
          if (manifest.policy !== policy.digest)
            f.push({
              code: 'E_DIGEST_OPEN',
              path: `${LAYOUT.inputs}#policy`,
              detail: `the policy decided under (${policy.digest}, ${policy.source}) is not the sealed policy ${manifest.policy}`,
            });
          // The seal's own recomputation also re-globs, so a new fixture file is drift too.
          const check = await verifySeal(repo, { policy, tree });
          if (check.status === 'drift') {
            const listed = new Set(f.map((x) => x.path));
            const extra = check.changes.filter(
              (c) => ![...listed].some((p) => c.includes(p)) && !/^[-+] (tree|policy)=/.test(c),
            );
            if (extra.length > 0 || f.length === 0)
              f.push({
                code: 'E_DIGEST_OPEN',
                path: LAYOUT.inputs,
                detail: `the fixture set drifted from the seal: ${(extra.length > 0 ? extra : check.changes).join('; ')}`,
              });
          }
        }
        if (config.clock !== undefined && config.clock !== manifest.clock)
          f.push({
            code: 'E_DIGEST_OPEN',
            path: LAYOUT.inputs,
            detail: `sealed clock "${manifest.clock}" differs from the config's "${config.clock}"`,
          });
        if (config.locale !== undefined && config.locale !== manifest.locale)
          f.push({
            code: 'E_DIGEST_OPEN',
            path: LAYOUT.inputs,
            detail: `sealed locale "${manifest.locale}" differs from the config's "${config.locale}"`,
          });
        summary =
          f.length === 0
            ? `digest ${sealedDigest} recomputed from ${manifest.files.length} fixture(s), seed, clock ${manifest.clock}, locale ${manifest.locale}, tree ${manifest.tree} (rebuilt from base ${record.base_commit ?? '?'} + the patch), policy ${manifest.policy}: match`
            : `digest ${sealedDigest}: DRIFT in ${f.length} place(s)`;
      }
      steps.push({ stage: 'seal', findings: f, summary });
    }

    // 2. The patch hash: record, credit and changed.json all name the bytes on disk.
    {
      const f: Finding[] = [];
      const bad = (path: string, detail: string): void => void f.push({ code: 'E_CREDIT_UNBOUND', path, detail });
      if (record.patch_sha256 === undefined)
        bad('record#patch_sha256', 'absent: nothing binds the proposal to its patch bytes');
      else if (!digestsEqual(record.patch_sha256, inputs.patchSha256))
        bad('record#patch_sha256', `the patch changed after the proposal (now ${inputs.patchSha256})`);
      if (inputs.credit !== null && inputs.credit.patch_sha256 === undefined)
        bad('credit#patch_sha256', 'absent: the credit does not say which patch bytes it scored');
      if (record.base_commit === undefined)
        bad(
          'record#base_commit',
          'absent: nothing says which base the patch was applied to, so the tree under test cannot be rebuilt',
        );
      if (changed !== null && record.base_commit !== undefined && changed.base !== record.base_commit)
        bad(
          `${LAYOUT.changed}#base`,
          `the symbols were extracted on base ${changed.base}, not the record's ${record.base_commit}`,
        );
      if (inputs.credit?.tree !== undefined && manifest !== null && inputs.credit.tree !== manifest.tree)
        bad('credit#tree', `the credit was scored on tree ${inputs.credit.tree}, not the sealed ${manifest.tree}`);
      if (changed !== null && !digestsEqual(changed.patch_sha256, inputs.patchSha256))
        bad(`${LAYOUT.changed}#patch_sha256`, 'the symbols were extracted from other patch bytes');
      steps.push({
        stage: 'patch',
        findings: f,
        summary:
          f.length === 0
            ? `${record.patch_path} sha256 ${inputs.patchSha256}: matches the record`
            : 'patch hash: MISMATCH',
      });
    }

    // 3. The journal: chain, order, the seal it records, and the log fields derived from it.
    let journal: JournalEvent[] | null = null;
    let logState: LogState | null = null;
    {
      const f: Finding[] = [];
      try {
        journal = readJournal(repo);
      } catch (err) {
        if (!(err instanceof SealgateError)) throw err;
        f.push(...err.findings);
      }
      if (journal !== null) {
        const sealed = record.digest_status === 'sealed' || inputs.runnerFiles.status === 'sealed';
        const live = lastLiveSeal(journal);
        if (sealed) {
          if (live === null)
            f.push({
              code: 'E_DIGEST_OPEN',
              path: LAYOUT.journal,
              detail: 'the status says sealed but the journal records no live seal',
            });
          else {
            if (sealedDigest !== null && !digestsEqual(live.digest, sealedDigest))
              f.push({
                code: 'E_DIGEST_OPEN',
                path: LAYOUT.journal,
                detail: `the journal's seal is of digest ${live.digest}, not ${sealedDigest}`,
              });
            if (runner !== null && !sameJob(live.runner_job, runner))
              f.push({
                code: 'E_DIGEST_OPEN',
                path: LAYOUT.journal,
                detail: `digest.status was sealed by "${live.runner_job}", not the record's runner "${runner}"; seal under the record's runner job`,
              });
          }
        }
        let store: Map<string, string> | null = null;
        try {
          store = listLogStore(repo);
        } catch (err) {
          f.push({
            code: 'E_INPUT_INVALID',
            path: LAYOUT.logs,
            detail: `cannot read the log store (${(err as NodeJS.ErrnoException).code ?? 'error'}); run verify as a user that can`,
          });
        }
        if (store !== null) {
          logState = deriveLogState(journal, store);
          if (logState.logs_present && !logState.logs_after_seal)
            f.push({
              code: 'E_LOGS_EARLY',
              path: LAYOUT.logs,
              detail: 'the log store holds files no run after the current seal wrote',
            });
          // logs_after_seal means nothing when there are no logs; the other two always must agree.
          const keys = logState.logs_present
            ? (['logs_present', 'logs_after_seal', 'log_visibility'] as const)
            : (['logs_present', 'log_visibility'] as const);
          for (const k of keys) {
            if (record[k] !== logState[k])
              f.push({
                code: 'E_INPUT_INVALID',
                path: `record#${k}`,
                detail: `says ${String(record[k])}, the journal and log store say ${String(logState[k])}`,
              });
          }
        }
      }
      if (journal !== null) f.push(...checkRunIsolation(config.sandbox, journal));
      const n = journal?.length ?? 0;
      steps.push({
        stage: 'journal',
        findings: f,
        summary:
          f.length === 0
            ? `${n} event(s), chain and order intact${logState ? `; logs present ${String(logState.logs_present)}, after seal ${String(logState.logs_after_seal)}, ${logState.log_visibility}` : ''}`
            : 'journal: PROBLEM',
      });
    }

    // 4. The credit, recomputed from the case file on the sealed digest.
    let recomputed: PropertyCredit | null = null;
    {
      const f: Finding[] = [];
      let summary = 'no credit file';
      if (inputs.credit !== null) {
        if (cases === null) {
          f.push({ code: 'E_CREDIT_UNBOUND', path: LAYOUT.cases, detail: 'absent: the credit cannot be recomputed' });
          summary = 'credit without a case file';
        } else if (sealedDigest === null) {
          f.push({
            code: 'E_CREDIT_UNBOUND',
            path: LAYOUT.digest,
            detail: 'no sealed digest to recompute the credit on',
          });
          summary = 'credit without a sealed digest';
        } else {
          const r = checkCreditAgainstCases(inputs.credit, cases, changed, sealedDigest, runner);
          recomputed = r.recomputed;
          f.push(...r.findings);
          summary =
            f.length === 0
              ? `credit ${inputs.credit.credit_id} recomputed from ${cases.cases.length} case(s): identical (pass ${String(recomputed.pass)})`
              : `credit ${inputs.credit.credit_id}: DIFFERS from the case file`;
        }
      }
      if (inputs.credit !== null)
        f.push(...checkCreditIsolation(config.sandbox, inputs.credit.sandbox, cases?.sandbox));
      steps.push({ stage: 'credit', findings: f, summary });
    }

    // 5. The gate.
    const decision = decide(inputs);
    steps.push({ stage: 'gate', findings: decision.findings, summary: `the gate's rules alone: ${decision.code}` });
    const final = combineAudit(decision, steps);
    return {
      ...final,
      steps,
      inputs,
      decision,
      changed,
      cases,
      journal,
      logState,
      manifest,
      recomputed,
      policy: { digest: policy.digest, source: policy.source, testCommand: config.test.command ?? null },
      tree: rebuilt,
      signatures,
    };
  }
}

/** The seal in force at the end of the journal (null after a reopen or when none). */
export function lastLiveSeal(events: readonly JournalEvent[]): JournalEvent | null {
  let live: JournalEvent | null = null;
  for (const e of events) {
    if (e.type === 'seal') live = e;
    if (e.type === 'reopen') live = null;
  }
  return live;
}
