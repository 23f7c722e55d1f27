// The spec's property_credit rule over a case file, and the credit id.
import { digestsEqual, sha256Hex } from '../../core/ids.js';
import { toJsonText } from '../../core/json.js';
import type { Case } from '../schema.js';

/** The spec's fields of a credit file. */
export interface PropertyCredit {
  readonly credit_id: string;
  readonly digest: string;
  readonly credited: string[];
  readonly test_ids: string[];
  readonly missing: string[];
  readonly tautologies: string[];
  readonly pass: boolean;
}

/**
 * The spec's `property_credit` rule (section 4), fail closed: cases on another digest or
 * not passed are ignored, tautologies earn nothing, and `pass` needs a non-empty `changed`
 * with nothing missing and no uncreditable file.
 */
export function propertyCredit(
  creditId: string,
  changed: readonly string[],
  cases: readonly Case[],
  digest: string,
  uncreditable: readonly string[] = [],
): PropertyCredit {
  const want = new Set(changed);
  const credited = new Set<string>();
  const testIds: string[] = [];
  const tautologies: string[] = [];
  for (const c of cases) {
    if (!digestsEqual(c.digest, digest) || c.status !== 'passed') continue;
    if (c.kind === 'tautology') {
      if (!tautologies.includes(c.id)) tautologies.push(c.id);
      continue;
    }
    const overlap = c.symbols.filter((s) => want.has(s));
    if (overlap.length === 0) continue;
    for (const s of overlap) credited.add(s);
    if (!testIds.includes(c.id)) testIds.push(c.id);
  }
  const missing = [...want].filter((s) => !credited.has(s)).sort();
  return {
    credit_id: creditId,
    digest,
    credited: [...credited].sort(),
    test_ids: testIds,
    missing,
    tautologies,
    pass: want.size > 0 && missing.length === 0 && uncreditable.length === 0,
  };
}

/** A credit id derived from the file's content: the same inputs give the same id, different ones a different id. */
export function toCreditId(content: unknown): string {
  return `credit-${sha256Hex(toJsonText(content)).slice(0, 16)}`;
}
