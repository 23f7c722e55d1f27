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

/** What a proposal's drafting reads: the tree, changed.json, the budget and seed, the base, whether the runner type-checks, the noise key. */
interface DraftInputs {
  readonly repo: string;
  readonly changed: Changed;
  readonly budget: number;
  readonly seed: string;
  readonly baseRev: string;
  readonly gitRepo: string;
  readonly typeCheck: boolean;
  readonly noiseKey: string;
}

/** A changed file as the drafting reads it once: its base version (null when added) and the symbols of both versions. */
interface DraftFile {
  readonly base: string | null;
  readonly baseSymbols: FileSymbols | null;
  readonly symbols: FileSymbols | null;
}

/** One proposal's drafting: the files it reads once, and each language's checks of its mutants. */
class Drafting {
  private readonly texts = new Map<string, string>();
  private readonly files = new Map<string, Promise<DraftFile>>();
  private readonly declared = new Map<string, Promise<ReadonlySet<string>>>();
  /** Each language's checks of this proposal's mutants, opened with its first symbol and closed when the last check is done. */
  private readonly sessions = new Map<CreditLanguage, ValiditySession>();

  constructor(readonly o: DraftInputs) {}

  /** A changed file's text in the runner's tree, or null when it is not there. */
  text(path: string): string | null {
    let text = this.texts.get(path);
    if (text === undefined) {
      try {
        text = readFileSync(resolveInRepo(this.o.repo, path, `${LAYOUT.changed}#locations`), 'utf8');
      } catch (err) {
        if (err instanceof SealgateError) return null;
        throw err;
      }
      this.texts.set(path, text);
    }
    return text;
  }

  /** The file's base version and both versions' symbols, read once per file. */
  file(path: string, language: string, text: string): Promise<DraftFile> {
    let p = this.files.get(path);
    if (p === undefined) {
      const entry = this.o.changed.files.find((f) => f.path === path);
      const oldPath = entry?.status === 'added' ? null : (entry?.old_path ?? path);
      p = (async () => {
        const base = oldPath === null ? null : readBaseFile(this.o.gitRepo, this.o.baseRev, oldPath);
        return {
          base,
          baseSymbols: base === null ? null : await symbolsOf(language, oldPath ?? path, base),
          symbols: await symbolsOf(language, path, text),
        };
      })();
      this.files.set(path, p);
    }
    return p;
  }

  /** The top-level names of a file's base and patched versions, once per file: a mutant that takes one away and still uses it is invalid (bindings.ts). */
  declaredIn(path: string, language: string, base: string | null, text: string): Promise<ReadonlySet<string>> {
    let p = this.declared.get(path);
    if (p === undefined) {
      p = (async () =>
        new Set([
          ...((base === null ? null : await topLevelNames(language, path, base)) ?? []),
          ...((await topLevelNames(language, path, text)) ?? []),
        ]))();
      p.catch(() => undefined);
      this.declared.set(path, p);
    }
    return p;
  }

  session(language: CreditLanguage): ValiditySession {
    let v = this.sessions.get(language);
    if (v === undefined)
      this.sessions.set(
        language,
        (v = language.validity({ repo: this.o.repo, gitRepo: this.o.gitRepo, typeCheck: this.o.typeCheck })),
      );
    return v;
  }

  /** Every symbol is drafted: the checks that take all mutants at once may start. */
  start(): void {
    for (const v of this.sessions.values()) v.start();
  }

  close(): void {
    for (const v of this.sessions.values()) v.close();
  }

  stalled(): string | null {
    for (const v of this.sessions.values()) {
      const stalled = v.stalled();
      if (stalled !== null) return stalled;
    }
    return null;
  }
}

/** Why a mutant of `path` is not a valid program (null: valid): its language's checks, then the names it takes away. */
function validityOf(
  language: string,
  path: string,
  text: string,
  check: (m: Mutant) => Promise<string | null>,
  declared: Promise<ReadonlySet<string>>,
): (m: Mutant) => Promise<string | null> {
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
}

/**
 * A draft's plan: its revert where valid, and its first `budget` valid behavioural mutants in the
 * seed's order. Invalid ones (no parse, no compile, no type check, a name taken away) are
 * discarded before they run; the next candidate takes the place. One check at a time, the event
 * loop turning between them: the parse check runs in this thread, Python's compile in its
 * interpreter, the type check in its worker; the runs go on meanwhile.
 */
async function judgeDraft(
  draft: SymbolPlan,
  built: Mutant | null,
  candidates: readonly Mutant[],
  invalid: (m: Mutant) => Promise<string | null>,
  o: Pick<DraftInputs, 'seed' | 'budget'>,
): Promise<SymbolPlan> {
  const check = async (x: Mutant): Promise<string | null> => {
    await new Promise<void>((r) => setImmediate(r));
    return await invalid(x);
  };
  const revertWhy = built ? await check(built) : null;
  const revert = revertWhy === null ? built : null;
  const { picked, discarded } = await pickValidAsync(
    selectMutants(candidates, candidates.length, o.seed),
    o.budget,
    check,
  );
  return {
    ...draft,
    mutants: picked,
    revert,
    ...(revertWhy !== null ? { revertInvalid: revertWhy } : {}),
    discarded: [...(built && revertWhy !== null ? [{ mutant: built.id, reason: revertWhy }] : []), ...discarded],
  };
}

type Location = Changed['locations'][string];

/**
 * One symbol's draft (its probe, trace, null mutant and change, no behavioural mutant or revert
 * yet), and the check that makes its plan. The revert carries the null's changes too
 * (camouflage); where they fall inside what it puts back, the base version carries its own
 * (ownNoiseRevert); else there is none.
 */
async function draftSymbol(
  d: Drafting,
  symbol: string,
  loc: Location,
  credit: CreditLanguage,
  text: string,
): Promise<{ draft: SymbolPlan; judge: () => Promise<SymbolPlan> }> {
  const { path, language } = loc;
  const span = { symbol, path, startLine: loc.start_line, endLine: loc.end_line, changedLines: loc.changed_lines };
  const name = symbol.slice(path.length + 2);
  const f = await d.file(path, language, text);
  const pieces = f.symbols?.symbols.get(name);
  // Where the file or the symbol cannot be found again, the whole of the symbol's lines is the change (no revert).
  const change: SymbolChange | undefined = pieces
    ? checkSymbolChange(
        language,
        text,
        pieces,
        f.base,
        f.base === null ? null : (f.baseSymbols?.symbols.get(name) ?? null),
      )
    : undefined;
  const noise = noiseFor(d.o.noiseKey, symbol);
  const m = await mutantsOf(language, text, span, change, noise);
  const built = change?.revert
    ? (camouflage(revertMutant(span, change.revert), m.noise, text) ??
      (await ownNoiseRevert(text, span, change.revert, language, noise)))
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
    path,
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
  const checks = d.session(credit).checker(path, text, [...(built ? [built] : []), ...m.candidates]);
  const declared = d.declaredIn(path, language, f.base, text);
  return {
    draft,
    judge: () => judgeDraft(draft, built, m.candidates, validityOf(language, path, text, checks, declared), d.o),
  };
}

/**
 * planSymbols in two parts: `drafts` at once (every symbol's probe, trace, null mutant and change),
 * and `judged`, the plans with their revert and valid behavioural mutants, which the validity
 * checks make while the first runs go on. `judged` never rejects unhandled: await it. `noiseKey`
 * writes the null changes (noiseFor): the credit step's comes from noiseKeyFor.
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
  const d = new Drafting({ repo, changed, budget, seed, baseRev, gitRepo, typeCheck, noiseKey });
  const drafts: SymbolPlan[] = [];
  const later: (() => Promise<SymbolPlan>)[] = [];
  const unsupported = new Map<string, string>();
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
    const text = d.text(loc.path);
    if (text === null) {
      unsupported.set(symbol, `its file ${loc.path} is not in the runner's tree`);
      continue;
    }
    const { draft, judge } = await draftSymbol(d, symbol, loc, credit, text);
    drafts.push(draft);
    later.push(judge);
  }
  d.start();
  const judged = (async () => {
    try {
      const out: SymbolPlan[] = [];
      for (const f of later) out.push(await f());
      return out;
    } finally {
      d.close();
    }
  })();
  // Awaited by the caller; until then a failure must not count as unhandled.
  judged.catch(() => undefined);
  return { drafts, judged, unsupported, typeCheckStalled: () => d.stalled() };
}
