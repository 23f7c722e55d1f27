import type * as v from 'valibot';
import type { Trust, TrustedKeyEntry } from '../config/schema.js';
import { checkSchema, parseDocumentBytes } from '../core/document.js';
import type { Finding } from '../core/errors.js';
import { digestsEqual, sameJob } from '../core/ids.js';
import { asSignatureFinding, parseEnvelope } from './dsse.js';
import { UNREADABLE } from './evidence.js';
import { verifyEnvelope } from './sign.js';
import {
  FreezeStatementSchema,
  RunnerStatementSchema,
  type FreezeStatement,
  type RunnerStatement,
  type Subject,
} from './statement.js';

/**
 * The gate's signature rules, pure: the envelope's one signature verifies with a key the
 * policy trusts for that role and for no other; the statement's subjects are exactly the
 * files judged, each with the SHA-256 of the bytes judged; the predicate names this
 * proposal, runner job, digest and credit. Every problem is E_SIGNATURE_INVALID.
 */

const bad = (path: string, detail: string): Finding => ({ code: 'E_SIGNATURE_INVALID', path, detail });

/** A key trusted for both roles lets one party be runner and reviewer: the trust section is refused. */
export function checkTrustRoles(trust: Trust): Finding[] {
  const reviewers = new Set(trust.reviewerKeys.map((k) => k.keyId));
  return trust.runnerKeys
    .filter((k) => reviewers.has(k.keyId))
    .map((k) =>
      bad('config#trust', `key ${k.keyId} is trusted as both runner and reviewer; each role needs its own key`),
    );
}

type Opened<T> =
  | { readonly ok: true; readonly keyId: string; readonly statement: T }
  | { readonly ok: false; readonly keyId: string | null; readonly findings: Finding[] };

/** Envelope bytes to the statement it signs, checked against the role's keys (and not the other role's). */
function openEnvelope<S extends v.GenericSchema>(
  bytes: Uint8Array | null,
  label: string,
  role: 'runner' | 'reviewer',
  keys: readonly TrustedKeyEntry[],
  otherRole: readonly TrustedKeyEntry[],
  schema: S,
): Opened<v.InferOutput<S>> {
  if (bytes === null)
    return {
      ok: false,
      keyId: null,
      findings: [
        bad(
          label,
          `absent: the policy trusts ${role} keys, so this evidence must be signed (sealgate ${role === 'runner' ? 'runner --signing-key' : 'freeze --signing-key'})`,
        ),
      ],
    };
  const env = parseEnvelope(bytes, label);
  if (!env.ok) return { ok: false, keyId: null, findings: [...env.findings] };
  const keyid = env.value.signatures[0]?.keyid ?? '';
  if (otherRole.some((k) => k.keyId === keyid)) {
    const other = role === 'runner' ? 'reviewer' : 'runner';
    return {
      ok: false,
      keyId: keyid,
      findings: [bad(label, `signed by ${keyid}, a ${other} key: the ${role}'s evidence needs a ${role} key`)],
    };
  }
  const check = verifyEnvelope(env.value, keys);
  if (!check.ok)
    return {
      ok: false,
      keyId: check.keyId,
      findings: [bad(label, `${check.problem}${role === 'runner' ? ' (trust.runnerKeys)' : ' (trust.reviewerKeys)'}`)],
    };
  const doc = parseDocumentBytes(check.payload, 'json', `${label}#payload`);
  const st = doc.ok ? checkSchema(schema, doc.value, `${label}#payload`) : doc;
  if (!st.ok) return { ok: false, keyId: check.keyId, findings: st.findings.map(asSignatureFinding) };
  return { ok: true, keyId: check.keyId, statement: st.value };
}

/** Subjects equal to the files judged: same names, same SHA-256; missing and extra both refused. */
export function checkSubjects(
  subjects: readonly Subject[],
  judged: ReadonlyMap<string, string>,
  label: string,
): Finding[] {
  const out: Finding[] = [];
  const named = new Map(subjects.map((s) => [s.name, s.digest.sha256]));
  for (const [name, sha] of judged) {
    const signed = named.get(name);
    if (sha === UNREADABLE)
      out.push(
        bad(name, "cannot be read by this user, so its signature cannot be checked; verify as the runner's user"),
      );
    else if (signed === undefined)
      out.push(
        bad(
          name,
          `not covered by ${label}: the file was added after the signature, or the signature is for other evidence`,
        ),
      );
    else if (!digestsEqual(signed, sha))
      out.push(bad(name, `its SHA-256 ${sha} is not the signed ${signed}: the file changed after it was signed`));
  }
  for (const name of named.keys())
    if (!judged.has(name)) out.push(bad(name, `signed in ${label} but absent: evidence removed after the signature`));
  return out;
}

/** What the runner's predicate must say, from the files the gate judges. */
export interface RunnerExpectation {
  readonly proposal_id: string;
  readonly runner_job: string;
  readonly author_job: string;
  readonly digest: string | null;
  readonly credit_id: string | null;
  readonly patch_sha256: string;
  /** Compared only where both sides have them (fields other stages add). */
  readonly base_commit?: string | undefined;
  readonly tree_id?: string | undefined;
  readonly policy_digest?: string | undefined;
  readonly test_command?: readonly string[] | undefined;
}

export interface RunnerAttestationInput {
  readonly envelope: Uint8Array | null;
  readonly label: string;
  readonly trust: Trust;
  /** Every evidence file judged, by subject name, with the SHA-256 of the bytes judged. */
  readonly judged: ReadonlyMap<string, string>;
  readonly expect: RunnerExpectation;
}

export interface AttestationResult {
  readonly findings: Finding[];
  readonly keyId: string | null;
}

function comparePredicate(p: RunnerStatement['predicate'], x: RunnerExpectation, label: string): Finding[] {
  const out: Finding[] = [];
  const at = (k: string): string => `${label}#predicate.${k}`;
  if (p.proposal_id !== x.proposal_id)
    out.push(
      bad(
        at('proposal_id'),
        `the attestation is for proposal "${p.proposal_id}", not "${x.proposal_id}" (replayed from another proposal?)`,
      ),
    );
  if (!sameJob(p.runner_job, x.runner_job))
    out.push(
      bad(at('runner_job'), `the attestation is from runner job "${p.runner_job}", not the record's "${x.runner_job}"`),
    );
  if (!sameJob(p.author_job, x.author_job))
    out.push(bad(at('author_job'), `names author job "${p.author_job}", not the record's "${x.author_job}"`));
  if (x.digest === null || !digestsEqual(p.digest, x.digest))
    out.push(bad(at('digest'), `the attestation is for digest ${p.digest}, not the sealed ${x.digest ?? '(none)'}`));
  if ((p.credit_id === null) !== (x.credit_id === null) || (p.credit_id !== null && p.credit_id !== x.credit_id))
    out.push(
      bad(at('credit_id'), `names credit ${p.credit_id ?? 'none'}, the credit file is ${x.credit_id ?? 'absent'}`),
    );
  if (!digestsEqual(p.patch_sha256, x.patch_sha256))
    out.push(bad(at('patch_sha256'), 'the attestation is for other patch bytes'));
  const pairs = [
    ['base_commit', p.base_commit, x.base_commit],
    ['tree_id', p.tree_id, x.tree_id],
    ['policy_digest', p.policy_digest, x.policy_digest],
  ] as const;
  for (const [k, signed, want] of pairs) {
    if (want !== undefined && signed !== want)
      out.push(bad(at(k), `says ${signed ?? '(absent)'}, the evidence says ${want}`));
  }
  if (x.test_command !== undefined && JSON.stringify(p.test_command) !== JSON.stringify(x.test_command)) {
    out.push(
      bad(
        at('test_command'),
        `the runner ran ${JSON.stringify(p.test_command)}, the policy's command is ${JSON.stringify(x.test_command)}`,
      ),
    );
  }
  return out;
}

export function checkRunnerAttestation(
  input: RunnerAttestationInput,
): AttestationResult & { statement: RunnerStatement | null } {
  const roles = checkTrustRoles(input.trust);
  const opened = openEnvelope(
    input.envelope,
    input.label,
    'runner',
    input.trust.runnerKeys,
    input.trust.reviewerKeys,
    RunnerStatementSchema,
  );
  if (!opened.ok) return { findings: [...roles, ...opened.findings], keyId: opened.keyId, statement: null };
  const st = opened.statement;
  const findings = [
    ...roles,
    ...checkSubjects(st.subject, input.judged, input.label),
    ...comparePredicate(st.predicate, input.expect, input.label),
  ];
  return { findings, keyId: opened.keyId, statement: st };
}

export interface FreezeAttestationInput {
  readonly envelope: Uint8Array | null;
  readonly label: string;
  readonly trust: Trust;
  /** Subject name and SHA-256 of the freeze bytes judged. */
  readonly freeze: { readonly name: string; readonly sha256: string; readonly value: Readonly<Record<string, string>> };
  readonly proposalId: string;
  /** The runner attestation's bytes and signer (null when it did not verify). */
  readonly runnerEnvelopeSha256: string | null;
  readonly runnerKeyId: string | null;
}

const FREEZE_FIELDS = [
  'freeze_id',
  'author_job',
  'runner_job',
  'runner_digest',
  'credit_id',
  'test_id',
  'expires_at',
] as const;

export function checkFreezeAttestation(
  input: FreezeAttestationInput,
): AttestationResult & { statement: FreezeStatement | null } {
  const opened = openEnvelope(
    input.envelope,
    input.label,
    'reviewer',
    input.trust.reviewerKeys,
    input.trust.runnerKeys,
    FreezeStatementSchema,
  );
  if (!opened.ok) return { findings: opened.findings, keyId: opened.keyId, statement: null };
  const st = opened.statement;
  const out = checkSubjects(st.subject, new Map([[input.freeze.name, input.freeze.sha256]]), input.label);
  if (input.runnerKeyId !== null && opened.keyId === input.runnerKeyId)
    out.push(
      bad(
        input.label,
        `the freeze is signed by the key that signed the runner's evidence (${opened.keyId}): a freeze needs a third party`,
      ),
    );
  const p = st.predicate;
  if (p.proposal_id !== input.proposalId)
    out.push(
      bad(
        `${input.label}#predicate.proposal_id`,
        `the freeze is for proposal "${p.proposal_id}", not "${input.proposalId}"`,
      ),
    );
  for (const k of FREEZE_FIELDS)
    if (p[k] !== input.freeze.value[k])
      out.push(
        bad(
          `${input.label}#predicate.${k}`,
          `says "${p[k]}", the freeze file says "${input.freeze.value[k] ?? '(absent)'}"`,
        ),
      );
  if (input.runnerEnvelopeSha256 === null || !digestsEqual(p.runner_attestation_sha256, input.runnerEnvelopeSha256)) {
    out.push(
      bad(
        `${input.label}#predicate.runner_attestation_sha256`,
        'the freeze was signed over another runner attestation than the one judged',
      ),
    );
  }
  return { findings: out, keyId: opened.keyId, statement: st };
}
