/**
 * Vitest global setup: every test file, and every process a test starts, makes its temporary files under one
 * folder of this run (TMPDIR points there, so `os.tmpdir()` and `mkdtemp` land in it), and the folder is removed
 * when the run ends, so a run leaves the system temp dir as it found it even when a test fails half-way. Tests
 * still remove what they create; this catches what they miss.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const outer = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'sessionfold-test-'));
  process.env.TMPDIR = root;
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    rmSync(root, { recursive: true, force: true });
  };
}
