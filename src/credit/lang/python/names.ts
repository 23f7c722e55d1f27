// The names a Python file binds at its top level and in its classes, and those a text refers to.
import type { Node } from 'web-tree-sitter';
import { getParser } from '../../../symbols/treesitter.js';

/** Compound statements at a module's top level whose blocks still bind module names (`try: import x`, `if ...: X = 1`). */
const PY_BLOCKS = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'try_statement',
  'except_clause',
  'finally_clause',
  'with_statement',
  'for_statement',
  'while_statement',
  'block',
]);

export async function pyTopLevel(text: string): Promise<Set<string> | null> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  if (!tree) return null;
  try {
    const out = new Set<string>();
    const named = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);
    const target = (t: Node): void => {
      if (t.type === 'identifier') out.add(t.text);
      else if (['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list'].includes(t.type))
        for (const c of named(t)) target(c);
    };
    const walk = (container: Node): void => {
      for (const st of named(container)) {
        let s = st.type === 'decorated_definition' ? (st.childForFieldName('definition') ?? st) : st;
        if (s.type === 'expression_statement') s = named(s)[0] ?? s;
        if (s.type === 'function_definition' || s.type === 'class_definition') {
          const name = s.childForFieldName('name');
          if (name) out.add(name.text);
          if (name && s.type === 'class_definition') for (const m of pyMembers(s)) out.add(`${name.text}.${m}`);
        } else if (s.type === 'import_statement') {
          for (const n of s.childrenForFieldName('name')) {
            if (n === null) continue;
            if (n.type === 'aliased_import') {
              const alias = n.childForFieldName('alias');
              if (alias) out.add(alias.text);
            } else out.add(n.text.split('.')[0] as string);
          }
        } else if (s.type === 'import_from_statement') {
          for (const n of s.childrenForFieldName('name')) {
            if (n === null) continue;
            const bound = n.type === 'aliased_import' ? n.childForFieldName('alias') : n;
            if (bound) out.add(bound.text);
          }
        } else if (s.type === 'assignment') {
          const left = s.childForFieldName('left');
          if (left) target(left);
        } else if (PY_BLOCKS.has(s.type)) {
          if (s.type === 'for_statement') {
            const left = s.childForFieldName('left');
            if (left) target(left);
          }
          if (s.type === 'with_statement') {
            for (const item of s.descendantsOfType('as_pattern_target')) if (item) target(named(item)[0] ?? item);
          }
          walk(s);
        }
      }
    };
    walk(tree.rootNode);
    return out;
  } finally {
    tree.delete();
  }
}

/** `self.x` or `cls.x`: the attribute's name, else null. */
function ownAttribute(n: Node): string | null {
  if (n.type !== 'attribute') return null;
  const obj = n.childForFieldName('object');
  return obj?.type === 'identifier' && (obj.text === 'self' || obj.text === 'cls')
    ? (n.childForFieldName('attribute')?.text ?? null)
    : null;
}

/** A class's members: the methods and fields its body defines, and the attributes its code sets on `self` or `cls`. */
function pyMembers(cls: Node): Set<string> {
  const out = new Set<string>();
  const body = cls.childForFieldName('body');
  for (const st of body ? body.namedChildren : []) {
    if (st === null) continue;
    const s =
      st.type === 'decorated_definition'
        ? (st.childForFieldName('definition') ?? st)
        : st.type === 'expression_statement'
          ? (st.namedChildren[0] ?? st)
          : st;
    const name =
      s.type === 'function_definition' || s.type === 'class_definition'
        ? s.childForFieldName('name')
        : s.type === 'assignment'
          ? s.childForFieldName('left')
          : null;
    if (name?.type === 'identifier') out.add(name.text);
  }
  for (const a of cls.descendantsOfType('assignment')) {
    const left = a?.childForFieldName('left');
    const attr = left ? ownAttribute(left) : null;
    if (attr !== null) out.add(attr);
  }
  return out;
}

/** The names of `wanted` that `text` refers to (not as an attribute, a keyword argument, a parameter or a definition's own name), and its `Class.member`s used as `self.member` inside that class. */
export async function pyReferences(text: string, wanted: ReadonlySet<string>): Promise<Set<string>> {
  const parser = await getParser('python');
  const tree = parser.parse(text);
  const out = new Set<string>();
  if (!tree) return out;
  try {
    for (const top of tree.rootNode.namedChildren) {
      const cls = top?.type === 'decorated_definition' ? top.childForFieldName('definition') : top;
      const name = cls?.type === 'class_definition' ? cls.childForFieldName('name')?.text : undefined;
      if (!cls || name === undefined) continue;
      for (const a of cls.descendantsOfType('attribute')) {
        const attr = a ? ownAttribute(a) : null;
        if (attr !== null && wanted.has(`${name}.${attr}`)) out.add(`${name}.${attr}`);
      }
    }
    for (const n of tree.rootNode.descendantsOfType('identifier')) {
      if (n === null || !wanted.has(n.text)) continue;
      const p = n.parent;
      if (p === null) continue;
      if (p.type === 'attribute' && p.childForFieldName('attribute')?.id === n.id) continue;
      if (p.type === 'keyword_argument' && p.childForFieldName('name')?.id === n.id) continue;
      if (
        (p.type === 'function_definition' || p.type === 'class_definition') &&
        p.childForFieldName('name')?.id === n.id
      )
        continue;
      if (
        [
          'parameters',
          'lambda_parameters',
          'default_parameter',
          'typed_parameter',
          'typed_default_parameter',
          'list_splat_pattern',
          'dictionary_splat_pattern',
        ].includes(p.type)
      )
        continue;
      if (
        [
          'dotted_name',
          'aliased_import',
          'import_statement',
          'import_from_statement',
          'global_statement',
          'nonlocal_statement',
        ].includes(p.type)
      )
        continue;
      out.add(n.text);
    }
    return out;
  } finally {
    tree.delete();
  }
}
