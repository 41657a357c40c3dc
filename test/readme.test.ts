/**
 * Docs that run: every TypeScript block of the README type-checks against the package's sources, and the
 * README's `npm start` transcript is what `sessionfold start` prints on a machine with no agent history.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const CLI = join(ROOT, 'dist/src/cli/main.cjs');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The fenced blocks of a language, in order. */
function blocks(lang: string): string[] {
  return [...README.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]!);
}

describe('README', () => {
  it('type-checks every TypeScript block against the package, and fails on a block that misuses it', () => {
    const code = blocks('ts');
    expect(code.length).toBeGreaterThanOrEqual(2);
    const dir = mkdtempSync(join(tmpdir(), 'sf-readme-'));
    dirs.push(dir);
    code.forEach((c, i) => writeFileSync(join(dir, `block-${i}.mts`), `${c}\nexport {};\n`));
    // The control: a message read has no token fields, so the check can fail, and fails only here.
    writeFileSync(join(dir, 'control.mts'), "import { read } from 'sessionfold';\nfor await (const e of read('claude', 'f', { kinds: ['message'] })) e.outputTokens;\nexport {};\n");
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
          paths: { sessionfold: [join(ROOT, 'src/index.ts')], 'sessionfold/cursors': [join(ROOT, 'cursors/index.ts')] },
        },
        include: ['*.mts'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    const errors = (r.stdout + r.stderr).split('\n').filter((l) => /error TS\d+/.test(l));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/control\.mts\(2,.*TS2339: Property 'outputTokens' does not exist/);
  });

  it("shows what `npm start` prints on a machine with no agent history", () => {
    const home = mkdtempSync(join(tmpdir(), 'sf-readme-home-'));
    dirs.push(home);
    mkdirSync(join(home, 'work'));
    const shown = blocks('text')[0]!;
    expect(shown).toContain('Recent sessions');
    // The README shows both streams as a terminal does, interleaved: one file open as stdout and stderr.
    const both = join(home, 'shown.txt');
    const fd = openSync(both, 'w');
    try {
      spawnSync(process.execPath, [CLI, 'start'], {
        env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', TZ: 'UTC', COLUMNS: '100', SESSIONFOLD_SOCKET: 'off' },
        cwd: join(home, 'work'),
        stdio: ['ignore', fd, fd],
      });
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(both, 'utf8')).toBe(shown);
  });
});
