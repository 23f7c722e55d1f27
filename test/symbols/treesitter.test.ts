import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { getParser, grammarWasmPath, TREE_SITTER_LANGUAGES } from '../../src/symbols/treesitter.js';

const SAMPLES = {
  python: ['def f(x):\n    return x\n', 'function_definition'],
  go: ['package a\nfunc F() {}\n', 'function_declaration'],
  java: ['class A { void f() {} }\n', 'class_declaration'],
  rust: ['fn f() {}\n', 'function_item'],
} as const;

test('every grammar resolves to a .wasm inside its package', () => {
  for (const lang of TREE_SITTER_LANGUAGES) {
    const p = grammarWasmPath(lang);
    assert.match(p, new RegExp(`tree-sitter-${lang}[/\\\\]tree-sitter-${lang}\\.wasm$`));
    assert.ok(existsSync(p), p);
  }
});

test('getParser parses each language and caches one parser per language', async () => {
  for (const lang of TREE_SITTER_LANGUAGES) {
    const parser = await getParser(lang);
    assert.equal(await getParser(lang), parser, `${lang}: cached`);
    const [src, type] = SAMPLES[lang];
    const tree = parser.parse(src);
    assert.ok(tree);
    assert.equal(tree.rootNode.hasError, false, lang);
    assert.equal(tree.rootNode.namedChildren.at(-1)?.type, type, lang);
    tree.delete();
  }
  assert.notEqual(await getParser('python'), await getParser('go'));
});
