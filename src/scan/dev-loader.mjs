// Development only: lets the parse worker (and test child processes) run straight from the TypeScript
// sources, as vitest does on the main thread. Resolves `./x.js` imports of a .ts file to `./x.ts` and strips
// types with the TypeScript compiler (a devDependency), keeping the output in node_modules/.cache so that a
// worker starts without loading the compiler (~0.7 s) once the sources were seen. The built package never
// loads this file: dist/ has worker.js next to pool.js.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

let ts;
const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/sessionfold-dev-loader/', import.meta.url));

export async function resolve(specifier, context, next) {
  const parent = context.parentURL;
  if (parent !== undefined && parent.endsWith('.ts') && specifier.startsWith('.') && specifier.endsWith('.js')) {
    const url = new URL(`${specifier.slice(0, -3)}.ts`, parent);
    if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const st = statSync(file);
  const cached = join(CACHE_DIR, `${createHash('sha256').update(`${file}\0${st.size}\0${st.mtimeMs}`).digest('hex').slice(0, 32)}.mjs`);
  if (existsSync(cached)) return { format: 'module', source: readFileSync(cached, 'utf8'), shortCircuit: true };
  ts ??= createRequire(import.meta.url)('typescript');
  const source = await readFile(file, 'utf8');
  const out = ts.transpileModule(source, {
    fileName: file,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
      inlineSourceMap: true,
    },
  });
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, out.outputText);
    renameSync(tmp, cached);
  } catch {
    // a read-only tree: no cache
  }
  return { format: 'module', source: out.outputText, shortCircuit: true };
}
