// Every changed symbol's plan: its probe, trace and null mutant at once, its revert and valid behavioural mutants checked meanwhile.
import { readFileSync } from 'node:fs';
import { SealgateError } from '../../core/errors.js';
import { LAYOUT } from '../../core/layout.js';
import { resolveInRepo } from '../../core/io.js';
import { type Changed } from '../../symbols/schema.js';
import {
  applyEdits,
  camouflage,
  noiseFor,
  randomNoiseKey,
  revertMutant,
  selectMutants,
  type Mutant,
} from '../mutants/mutant.js';
import { pickValidAsync } from '../mutants/valid.js';
import type { SymbolChange } from '../mutants/change.js';
import { checkSymbolChange, creditLanguage, lostNames, mutantsOf, topLevelNames } from '../lang/index.js';
import type { CreditLanguage, ValiditySession } from '../lang/language.js';
import { extractFile } from '../../symbols/jobs.js';
import { type FileSymbols } from '../../symbols/model.js';
import type { SymbolPlan } from '../mutants/plan.js';
import { readBaseFile } from './inputs.js';
import { ownNoiseRevert } from './revert.js';

export type Drafted = Awaited<ReturnType<typeof draftSymbols>>;

/** Symbols by qualified name in one file's text (null when it does not parse). */
export async function symbolsOf(language: string, path: string, text: string): Promise<FileSymbols | null> {
  const s = await extractFile(language, path, Buffer.from(text, 'utf8'), { docstringChanges: false });
  return s.parsed ? s : null;
}

/** Mutants for every changed symbol the oracle supports: on its changed tokens, its revert, its null mutant. */
/** `repo` is the tree the mutants are planned on; `gitRepo` the repository holding the base commit (default: `repo`). */
/** `typeCheck`: the test runner type-checks TS (checkRunnerTypeChecks), so TS mutants are type-checked before they run. */
export async function planSymbols(
  repo: string,
  changed: Changed,
  budget: number,
  seed: string,
  baseRev: string = changed.base,
  gitRepo: string = repo,
  typeCheck = false,
  noiseKey: string = randomNoiseKey(),
): Promise<{ plans: SymbolPlan[]; unsupported: Map<string, string> }> {
  const d = await draftSymbols(repo, changed, budget, seed, baseRev, gitRepo, typeCheck, noiseKey);
  return { plans: await d.judged, unsupported: d.unsupported };
}

/**
 * planSymbols in two parts: `drafts` at once (every symbol's probe, trace, null mutant and
 * change, no behavioural mutant or revert yet), and `judged`, the plans with their valid
 * mutants, which the validity checks (TypeScript's type check: seconds) make while the first
 * runs go on. The oracle runs the trace, the control and the probes on the drafts, and judges
 * with the plans. `judged` never rejects unhandled: await it. `noiseKey` writes the null
 * changes (noiseFor); the credit step's comes from noiseKeyFor, a fresh random one otherwise.
 */
export async function draftSymbols(
  repo: string,
  changed: Changed,
  budget: number,
  seed: string,
  baseRev: string = changed.base,
  gitRepo: string = repo,
  typeCheck = false,
  noiseKey: string = randomNoiseKey(),
): Promise<{
  drafts: SymbolPlan[];
  judged: Promise<SymbolPlan[]>;
  unsupported: Map<string, string>;
  typeCheckStalled: () => string | null;
}> {
  const drafts: SymbolPlan[] = [];
  const later: (() => Promise<SymbolPlan>)[] = [];
  const unsupported = new Map<string, string>();
  const texts = new Map<string, string>();
  // Each language's checks of this proposal's mutants, opened with its first symbol and closed when the last check is done.
  const sessions = new Map<CreditLanguage, ValiditySession>();
  const sessionOf = (language: CreditLanguage): ValiditySession => {
    let v = sessions.get(language);
    if (v === undefined) sessions.set(language, (v = language.validity({ repo, gitRepo, typeCheck })));
    return v;
  };
  /** Why a mutant of `path` is not a valid program (null: valid): its language's checks, then the names it takes away. */
  const validityFor = (
    language: string,
    path: string,
    text: string,
    check: (m: Mutant) => Promise<string | null>,
    declared: Promise<ReadonlySet<string>>,
  ): ((m: Mutant) => Promise<string | null>) => {
    const memo = new Map<string, string | null>();
    return async (x) => {
      const known = memo.get(x.id);
      if (known !== undefined) return known;
      let why = await check(x);
      // A name the patched or the base file declared that the mutant takes away but still uses (bindings.ts).
      why ??= await lostNames(language, path, await declared, applyEdits(text, x.edits));
      memo.set(x.id, why);
      return why;
    };
  };
  /** The top-level names of a file's base and patched versions, once per file: a mutant that takes one away and still uses it is invalid (bindings.ts). */
  const declaredByPath = new Map<string, Promise<ReadonlySet<string>>>();
  const declaredIn = (
    path: string,
    language: string,
    base: string | null,
    text: string,
  ): Promise<ReadonlySet<string>> => {
    let p = declaredByPath.get(path);
    if (p === undefined) {
      p = (async () =>
        new Set([
          ...((base === null ? null : await topLevelNames(language, path, base)) ?? []),
          ...((await topLevelNames(language, path, text)) ?? []),
        ]))();
      p.catch(() => undefined);
      declaredByPath.set(path, p);
    }
    return p;
  };
  const parsed = new Map<
    string,
    Promise<{ base: string | null; baseSymbols: FileSymbols | null; symbols: FileSymbols | null }>
  >();
  const fileOf = (path: string, language: string, text: string) => {
    let p = parsed.get(path);
    if (p === undefined) {
      const entry = changed.files.find((f) => f.path === path);
      const oldPath = entry?.status === 'added' ? null : (entry?.old_path ?? path);
      p = (async () => {
        const base = oldPath === null ? null : readBaseFile(gitRepo, baseRev, oldPath);
        return {
          base,
          baseSymbols: base === null ? null : await symbolsOf(language, oldPath ?? path, base),
          symbols: await symbolsOf(language, path, text),
        };
      })();
      parsed.set(path, p);
    }
    return p;
  };
  for (const symbol of changed.changed) {
    const loc = changed.locations[symbol];
    if (!loc) {
      unsupported.set(symbol, 'changed.json gives no location for it');
      continue;
    }
    const credit = creditLanguage(loc.language);
    if (!credit.credit) {
      unsupported.set(symbol, credit.reason);
      continue;
    }
    let text = texts.get(loc.path);
    if (text === undefined) {
      try {
        text = readFileSync(resolveInRepo(repo, loc.path, `${LAYOUT.changed}#locations`), 'utf8');
      } catch (err) {
        if (err instanceof SealgateError) {
          unsupported.set(symbol, `its file ${loc.path} is not in the runner's tree`);
          continue;
        }
        throw err;
      }
      texts.set(loc.path, text);
    }
    const span = {
      symbol,
      path: loc.path,
      startLine: loc.start_line,
      endLine: loc.end_line,
      changedLines: loc.changed_lines,
    };
    const name = symbol.slice(loc.path.length + 2);
    const f = await fileOf(loc.path, loc.language, text);
    const pieces = f.symbols?.symbols.get(name);
    // Where the file or the symbol cannot be found again, the whole of the symbol's lines is the change (no revert).
    const change: SymbolChange | undefined = pieces
      ? checkSymbolChange(
          loc.language,
          text,
          pieces,
          f.base,
          f.base === null ? null : (f.baseSymbols?.symbols.get(name) ?? null),
        )
      : undefined;
    const noise = noiseFor(noiseKey, symbol);
    const m = await mutantsOf(loc.language, text, span, change, noise);
    // The revert carries the null's changes too (camouflage); where they fall inside what it
    // puts back, the base version carries its own (ownNoiseRevert); else there is none.
    const built = change?.revert
      ? (camouflage(revertMutant(span, change.revert), m.noise, text) ??
        (await ownNoiseRevert(text, span, change.revert, loc.language, noise)))
      : null;
    const noRevert =
      change?.noRevert ??
      (change === undefined
        ? 'the symbol could not be found again in its file'
        : change.revert && built === null
          ? "the base version cannot carry the null mutant's changes (they fall inside what it puts back)"
          : undefined);
    const draft: SymbolPlan = {
      symbol,
      path: loc.path,
      probe: m.probe,
      trace: m.trace,
      mutants: [],
      candidates: m.candidates.length,
      change: change?.status ?? 'modified',
      revert: null,
      ...(noRevert !== undefined ? { noRevert } : {}),
      // The null mutant is never discarded (that would only weaken the check); mutant.ts keeps it valid.
      nulls: m.nulls,
    };
    drafts.push(draft);
    const { path, language } = loc;
    const body = text;
    const judgedMutants = [...(built ? [built] : []), ...m.candidates];
    const checks = sessionOf(credit).checker(path, body, judgedMutants);
    const declared = declaredIn(path, language, f.base, body);
    later.push(async () => {
      // Invalid mutants (no compile, no type-check, a name taken away) are discarded before they run; the next candidate takes the place.
      const invalid = validityFor(language, path, body, checks, declared);
      // One check at a time, the event loop turning between them: the parse check runs in this
      // thread, Python's compile in its interpreter, the type check in its worker; the runs go on meanwhile.
      const check = async (x: Mutant): Promise<string | null> => {
        await new Promise<void>((r) => setImmediate(r));
        return await invalid(x);
      };
      const revertWhy = built ? await check(built) : null;
      const revert = revertWhy === null ? built : null;
      const { picked, discarded } = await pickValidAsync(
        selectMutants(m.candidates, m.candidates.length, seed),
        budget,
        check,
      );
      return {
        ...draft,
        mutants: picked,
        revert,
        ...(revertWhy !== null ? { revertInvalid: revertWhy } : {}),
        discarded: [...(built && revertWhy !== null ? [{ mutant: built.id, reason: revertWhy }] : []), ...discarded],
      };
    });
  }
  for (const v of sessions.values()) v.start();
  const judged = (async () => {
    try {
      const out: SymbolPlan[] = [];
      for (const f of later) out.push(await f());
      return out;
    } finally {
      for (const v of sessions.values()) v.close();
    }
  })();
  // Awaited by the caller; until then a failure must not count as unhandled.
  judged.catch(() => undefined);
  const typeCheckStalled = (): string | null => {
    for (const v of sessions.values()) {
      const stalled = v.stalled();
      if (stalled !== null) return stalled;
    }
    return null;
  };
  return { drafts, judged, unsupported, typeCheckStalled };
}
