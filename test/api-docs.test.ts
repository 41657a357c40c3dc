/**
 * The package root is a curated surface, and every name it exports says what it is: a doc comment on its
 * declaration. A control export without one shows that the check can fail.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function undocumented(entry: string, extra?: { name: string; text: string }): { exports: number; missing: string[] } {
  const options: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, skipLibCheck: true, noEmit: true };
  const host = ts.createCompilerHost(options);
  if (extra !== undefined) {
    const read = host.readFile.bind(host);
    const get = host.getSourceFile.bind(host);
    host.readFile = (f) => (f === extra.name ? extra.text : read(f));
    host.fileExists = ((exists) => (f: string) => f === extra.name || exists(f))(host.fileExists.bind(host));
    host.getSourceFile = (f, v, ...rest) => (f === extra.name ? ts.createSourceFile(f, extra.text, v) : get(f, v, ...rest));
  }
  const program = ts.createProgram([extra?.name ?? entry], options, host);
  const checker = program.getTypeChecker();
  const mod = checker.getSymbolAtLocation(program.getSourceFile(extra?.name ?? entry)!)!;
  const all = checker.getExportsOfModule(mod);
  const missing = all
    .filter((e) => {
      const s = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      return ts.displayPartsToString(s.getDocumentationComment(checker)).trim() === '';
    })
    .map((e) => e.name);
  return { exports: all.length, missing };
}

describe('the package root', () => {
  it('exports a curated set of names, each with a doc comment', () => {
    const r = undocumented(join(ROOT, 'src/index.ts'));
    expect(r.exports).toBeGreaterThan(40);
    // A fifth or more of the names are the built-in codecs, one per agent, and grow with them; the rest
    // (the folds, the protocol, the helpers) are the curated part.
    const codecs = undocumented(join(ROOT, 'src/codec-objects.ts')).exports;
    expect(codecs).toBeGreaterThan(30);
    expect(r.exports - codecs).toBeLessThan(120);
    expect(r.missing).toEqual([]);
  });

  it('finds an export without a doc comment', () => {
    const name = join(ROOT, 'src/__api_control.ts');
    const r = undocumented('', { name, text: "/** Documented. */\nexport const a = 1;\nexport const b = 2;\nexport { getCodec } from './registry.js';\n" });
    expect(r.missing).toEqual(['b']);
  });
});
