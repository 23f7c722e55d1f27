// Python's mutants of one symbol, with tree-sitter: the probe, the trace, the null mutant and the behavioural candidates.
import type { Node } from 'web-tree-sitter';
import { getParser } from '../../../symbols/treesitter.js';
import type { SymbolChange } from '../../mutants/change.js';
import { touchesChange } from '../../mutants/change.js';
import type { Edit, MutantCategory, NullPart, Site } from '../../mutants/mutant.js';
import {
  applyEdits,
  camouflage,
  freshName,
  holdsName,
  isModuleSymbol,
  noiseFor,
  nullWithParts,
  probeMutant,
  randomNoiseKey,
  toMutants,
  type Mutant,
  type Noise,
  type SymbolMutants,
  type SymbolSpan,
} from '../../mutants/mutant.js';

const PROBE = "raise RuntimeError('sealgate-probe')";

/**
 * A statement that appends `<symbol>\t<pytest node id>` to $SEALGATE_TRACE_FILE, if set. The
 * file is opened and closed in the statement (no ResourceWarning under `filterwarnings = error`),
 * each symbol and test is written once, and nothing stays behind in the module's names.
 */
function traceStmt(symbol: string): string {
  const key = JSON.stringify(symbol);
  // Builtins through the builtins module: a local of the function named `type`, `set` or `open`
  // (assigned anywhere in it, so local throughout) must not break the statement.
  return `(lambda o, b, s: o.environ.get('SEALGATE_TRACE_FILE') and (lambda k: k not in s and (s.add(k), (lambda f: (f.write(k + '\\n'), f.close()))(b.open(o.environ['SEALGATE_TRACE_FILE'], 'a', encoding='utf-8'))))(${key} + '\\t' + o.environ.get('PYTEST_CURRENT_TEST', '').rsplit(' (', 1)[0]))(__import__('os'), __import__('builtins'), __import__('sys').modules.setdefault('_sealgate_trace', __import__('types').ModuleType('_sealgate_trace')).__dict__.setdefault('seen', __import__('builtins').set()))`;
}

// Swaps that keep int arithmetic int (only true division changes a type, from float to int).
const ARITH: Record<string, string> = { '+': '-', '-': '+', '*': '+', '/': '*', '//': '*', '%': '//', '**': '*' };
const COMPARE: Record<string, string> = {
  '<': '<=',
  '<=': '<',
  '>': '>=',
  '>=': '>',
  '==': '!=',
  '!=': '==',
  is: 'is not',
  in: 'not in',
};

/** A same-type replacement for a returned value (bool before int: bool is an int in Python). */
function altValue(expr: string): string {
  // Builtins through the builtins module: a local named `len` or `list` must not make it raise.
  return `(lambda b, v: (not v) if b.isinstance(v, b.bool) else (v + 1) if b.isinstance(v, __import__('numbers').Number) else (('' if v else 'sealgate') if b.isinstance(v, b.str) else (v[1:] if b.isinstance(v, (b.list, b.tuple)) and b.len(v) > 0 else (b.dict(b.list(v.items())[1:]) if b.isinstance(v, b.dict) and b.len(v) > 0 else v))))(__import__('builtins'), ${expr})`;
}

const named = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);

// web-tree-sitter parsing a JS string reports UTF-16 indices, the same units as String#slice.
function byteToCharIndex(text: string): (b: number) => number {
  return (b: number) => Math.min(b, text.length);
}

/** Comparisons whose swap inverts the condition whole (an ordering swap only moves its boundary). */
const INVERTS = new Set(['==', '!=', 'is', 'in']);

/**
 * A guard clause: an `if` or `elif` whose block ends in a `raise`. A mutant that inverts its
 * whole condition raises wherever the symbol did not: for a test that calls it, that is the
 * probe again, so it is not made (see mutate-ts.ts, isThrowGuard).
 */
function isRaiseGuard(n: Node): boolean {
  if (n.type !== 'if_statement' && n.type !== 'elif_clause') return false;
  const block = n.childForFieldName('consequence');
  const stmts = block === null ? [] : named(block).filter((c) => c.type !== 'comment');
  return stmts[stmts.length - 1]?.type === 'raise_statement';
}

/** Is `n` (within parentheses) the whole condition of a guard clause? */
function guardsRaise(n: Node): boolean {
  let x: Node = n;
  while (x.parent?.type === 'parenthesized_expression') x = x.parent;
  const p = x.parent;
  return p !== null && p.childForFieldName('condition')?.id === x.id && isRaiseGuard(p);
}

function isDocstring(n: Node): boolean {
  if (n.type !== 'expression_statement') return false;
  const only = named(n);
  if (only.length !== 1 || only[0]?.type !== 'string') return false;
  const block = n.parent;
  // The first statement of its block (comments are not statements).
  return block !== null && named(block).find((c) => c.type !== 'comment')?.id === n.id;
}

// What lets a body see or publish its own local names: then no rename keeps its behaviour.
const SEES_NAMES = /\b(?:locals|vars|eval|exec|globals|_getframe|currentframe)\s*\(|__dict__|=\s*\}|\bsuper\s*\(\s*\)/;

/**
 * The renamed-local null mutant: the first name a plain assignment binds in a function body,
 * renamed (old name and the noise's suffix) wherever it occurs there as a name. Never a parameter,
 * nor a name of `avoid` (the revert's texts); null when the body can see its names (`locals()`,
 * `f"{x=}"`), binds the name otherwise too, or the result does not parse.
 */
function renameLocalPy(
  text: string,
  bodies: readonly Node[],
  parses: (t: string) => boolean,
  suffix: string,
  avoid: readonly string[],
): { from: string; to: string; edits: Edit[] } | null {
  for (const b of bodies) {
    if (SEES_NAMES.test(b.text)) continue;
    const fn = b.parent;
    const params = new Set<string>();
    const p = fn?.childForFieldName('parameters');
    if (p) for (const id of p.descendantsOfType('identifier')) if (id) params.add(id.text);
    const blocked = new Set<string>(params);
    for (const n of b.descendantsOfType([
      'global_statement',
      'nonlocal_statement',
      'import_statement',
      'import_from_statement',
      'function_definition',
      'class_definition',
      'match_statement',
      'lambda',
      'keyword_argument',
    ])) {
      if (!n) continue;
      if (n.type === 'function_definition' || n.type === 'class_definition') {
        const name = n.childForFieldName('name');
        if (name) blocked.add(name.text);
        const ps = n.childForFieldName('parameters');
        if (ps) for (const id of ps.descendantsOfType('identifier')) if (id) blocked.add(id.text);
      } else if (n.type === 'lambda') {
        const ps = n.childForFieldName('parameters');
        if (ps) for (const id of ps.descendantsOfType('identifier')) if (id) blocked.add(id.text);
      } else if (n.type === 'keyword_argument') continue;
      else
        for (const id of n.descendantsOfType(['identifier', 'dotted_name']))
          if (id) blocked.add(id.text.split('.')[0] ?? id.text);
    }
    const assigned = b
      .descendantsOfType('assignment')
      .map((a) => a?.childForFieldName('left'))
      .find((l) => l?.type === 'identifier' && !blocked.has(l.text) && !avoid.some((t) => holdsName(t, l.text)));
    if (!assigned) continue;
    const from = assigned.text;
    const to = freshName(text, `${from}_${suffix}`);
    const edits: Edit[] = [];
    for (const id of b.descendantsOfType('identifier')) {
      if (id?.text !== from) continue;
      const par = id.parent;
      if (par?.type === 'attribute' && par.childForFieldName('attribute')?.id === id.id) continue;
      if (par?.type === 'keyword_argument' && par.childForFieldName('name')?.id === id.id) continue;
      edits.push({ start: id.startIndex, end: id.endIndex, text: to });
    }
    if (edits.length > 0 && parses(applyEdits(text, edits))) return { from, to, edits };
  }
  return null;
}

/** Mutants of one symbol in a Python file. */
export async function mutatePy(
  text: string,
  span: SymbolSpan,
  change?: SymbolChange,
  noise: Noise = noiseFor(randomNoiseKey(), span.symbol),
): Promise<SymbolMutants> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  if (!tree) throw new Error(`tree-sitter could not parse ${span.path}`);
  try {
    const idx = byteToCharIndex(text);
    const line = (n: Node): number => n.startPosition.row + 1;
    const endLine = (n: Node): number => n.endPosition.row + 1;
    const bodies: Node[] = [];
    const find = (n: Node): void => {
      if (isModuleSymbol(span.symbol)) return;
      if (n.type === 'function_definition' && line(n) >= span.startLine && endLine(n) <= span.endLine) {
        const b = n.childForFieldName('body');
        if (b) bodies.push(b);
        return;
      }
      for (const c of named(n)) find(c);
    };
    find(tree.rootNode);
    const hasBody = bodies.length > 0;

    const entryEdits = (stmt: string): Edit[] => {
      if (hasBody) {
        return bodies.map((b) => {
          const stmts = named(b).filter((n) => n.type !== 'comment');
          const sameLine = b.startPosition.row === b.parent?.startPosition.row;
          // After a docstring, never before it: a statement in front would make it an ordinary
          // string and __doc__ None, which a doctest or a test of __doc__ would notice.
          const doc = stmts[0] !== undefined && isDocstring(stmts[0]) ? stmts[0] : null;
          const first = (doc !== null ? stmts[1] : stmts[0]) ?? null;
          if (first === null && doc !== null) {
            const at = idx(doc.endIndex);
            return {
              start: at,
              end: at,
              text: sameLine ? `; ${stmt}` : `\n${' '.repeat(doc.startPosition.column)}${stmt}`,
            };
          }
          const at = idx((first ?? b).startIndex);
          const indent = ' '.repeat((first ?? b).startPosition.column);
          return { start: at, end: at, text: sameLine ? `${stmt}; ` : `${stmt}\n${indent}` };
        });
      }
      const root = named(tree.rootNode);
      const firstStmt =
        root.find(
          (s) =>
            s.type !== 'import_statement' &&
            s.type !== 'import_from_statement' &&
            s.type !== 'future_import_statement' &&
            !isDocstring(s),
        ) ?? null;
      const at = firstStmt ? idx(firstStmt.startIndex) : text.length;
      return [{ start: at, end: at, text: `${stmt}\n` }];
    };
    const probeEdits = entryEdits(PROBE);
    const trace = entryEdits(traceStmt(span.symbol));
    const probe = probeMutant(span, hasBody ? 'raises on entry' : 'raises when its module loads', probeEdits);
    const parses = (t: string): boolean => {
      const tr = parser.parse(t);
      if (!tr) return false;
      try {
        return !tr.rootNode.hasError;
      } finally {
        tr.delete();
      }
    };
    // A comment on a body that shares its `def` line goes at the end of that body (at its
    // entry it would swallow the rest of the line).
    const commentEdits = entryEdits(`# ${noise.word}`).map((e, i): Edit => {
      const b = hasBody ? bodies[i] : undefined;
      if (b === undefined || b.startPosition.row !== b.parent?.startPosition.row) return e;
      const end = idx(b.endIndex);
      return { start: end, end, text: `  # ${noise.word}` };
    });
    // The null parts (insertions at one place are joined in this order).
    const parts: NullPart[] = [
      { label: 'a no-op statement', edits: entryEdits('pass') },
      { label: 'a comment', edits: commentEdits },
      { label: 'a no-op expression', edits: entryEdits('()') },
    ];
    // Never a local the revert's own text names: the revert carries the rename too (camouflage).
    const renamed = renameLocalPy(
      text,
      bodies,
      parses,
      noise.suffix,
      (change?.revert ?? []).map((e) => e.text),
    );
    if (renamed !== null)
      parts.push({
        label: `a renamed local (${renamed.from} -> ${renamed.to})`,
        edits: renamed.edits,
        renames: renamed.from,
      });
    // Checked by parsing only where the unmutated file parses (tree-sitter may not know all of its syntax).
    const checkable = parses(text);
    const chosen = nullWithParts(span, parts, (edits) => !checkable || parses(applyEdits(text, edits)));
    const nulls = [chosen.mutant];

    const inChanged = (n: Node): boolean => span.changedLines.some(([a, b]) => line(n) >= a && endLine(n) <= b);
    const sites: Site[] = [];
    const add = (category: MutantCategory, n: Node, what: string, edits: Edit[]): void => {
      if (change && !touchesChange(change.changed, edits)) return;
      sites.push({ category, line: line(n), column: n.startPosition.column + 1, change: what, edits });
    };
    const replace = (n: Node, t: string): Edit => ({ start: idx(n.startIndex), end: idx(n.endIndex), text: t });
    const sitesOf = (n: Node): void => {
      switch (n.type) {
        case 'binary_operator': {
          const op = n.childForFieldName('operator');
          const to = op ? ARITH[op.type] : undefined;
          const stringy = [n.childForFieldName('left'), n.childForFieldName('right')].some((x) => x?.type === 'string');
          if (op && to !== undefined && !((op.type === '+' || op.type === '*' || op.type === '%') && stringy))
            add('arithmetic', op, `${op.type} -> ${to}`, [replace(op, to)]);
          break;
        }
        case 'comparison_operator': {
          const ops = n.children.filter((c): c is Node => c !== null && !c.isNamed);
          if (ops.length === 1) {
            const op = ops[0] as Node;
            const to = COMPARE[op.type];
            if (to !== undefined && !(INVERTS.has(op.type) && guardsRaise(n)))
              add('comparison', op, `${op.type} -> ${to}`, [replace(op, to)]);
          }
          break;
        }
        case 'boolean_operator': {
          const op = n.childForFieldName('operator');
          if (op)
            add('logical', op, `${op.type} -> ${op.type === 'and' ? 'or' : 'and'}`, [
              replace(op, op.type === 'and' ? 'or' : 'and'),
            ]);
          break;
        }
        case 'not_operator': {
          const a = n.childForFieldName('argument');
          if (a && !guardsRaise(n)) add('unary', n, 'removed not', [replace(n, `(${a.text})`)]);
          break;
        }
        case 'if_statement':
        case 'elif_clause':
        case 'while_statement': {
          const c = n.childForFieldName('condition');
          if (c && !isRaiseGuard(n)) add('negate', c, 'negated condition', [replace(c, `not (${c.text})`)]);
          break;
        }
        case 'conditional_expression': {
          const parts = named(n);
          const c = parts[1];
          if (c) add('negate', c, 'negated condition', [replace(c, `not (${c.text})`)]);
          break;
        }
        case 'integer':
        case 'float': {
          const v = Number(n.text.replace(/_/g, ''));
          if (Number.isFinite(v) && /^[0-9._eE+-]+$/.test(n.text))
            add('constant', n, `${n.text} -> ${v + 1}`, [replace(n, String(v + 1))]);
          break;
        }
        case 'true':
        case 'false':
          add('constant', n, `${n.text} -> ${n.type === 'true' ? 'False' : 'True'}`, [
            replace(n, n.type === 'true' ? 'False' : 'True'),
          ]);
          break;
        case 'string': {
          const p = n.parent;
          const valueish =
            (p !== null &&
              p.type !== 'expression_statement' &&
              p.type !== 'concatenated_string' &&
              p.type !== 'keyword_argument') ||
            (p?.type === 'keyword_argument' && p.childForFieldName('value')?.id === n.id);
          if (valueish && !named(n).some((c) => c.type === 'interpolation') && !/^[rRbBuU]*[fF]/.test(n.text)) {
            const empty = /^[a-zA-Z]*("""|'''|"|')\1?$/.test(n.text) || /^[a-zA-Z]*(""|'')$/.test(n.text);
            add('constant', n, empty ? "'' filled" : 'string emptied', [replace(n, empty ? `'${noise.fill}'` : "''")]);
          }
          break;
        }
        case 'expression_statement':
          if (!isDocstring(n)) add('delete', n, 'statement deleted', [replace(n, 'pass')]);
          break;
        case 'return_statement': {
          const e = named(n)[0];
          if (e) add('return', n, 'return value replaced', [replace(e, altValue(e.text))]);
          break;
        }
      }
    };
    const visit = (n: Node, allowed: boolean): void => {
      if (
        n.type === 'type' ||
        n.type === 'decorator' ||
        n.type === 'import_statement' ||
        n.type === 'import_from_statement'
      )
        return;
      if (allowed || (!hasBody && (change !== undefined || inChanged(n)))) sitesOf(n);
      for (const c of named(n)) visit(c, allowed);
    };
    for (const b of bodies) visit(b, true);
    if (!hasBody) visit(tree.rootNode, false);
    // Each carries the null's changes too (a mutant that cannot is left out), so only its own change tells it from the null.
    const candidates = toMutants(span.symbol, span.path, sites)
      .map((m) => camouflage(m, chosen.parts, text))
      .filter((m): m is Mutant => {
        if (m === null) return false;
        // A mutant that does not parse is discarded before it runs.
        const t = parser.parse(applyEdits(text, m.edits));
        if (!t) return false;
        try {
          return !t.rootNode.hasError;
        } finally {
          t.delete();
        }
      });
    return { probe, trace, candidates, nulls, noise: chosen.parts, hasBody };
  } finally {
    tree.delete();
  }
}
