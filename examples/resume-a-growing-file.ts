/**
 * Resume reads of a growing session file: each run reads only the bytes appended since the last one, and
 * keeps a running usage total. Run: `node dist/examples/resume-a-growing-file.js <file> [agent]`.
 */
import { CursorStore } from '../cursors/index.js';
import { getCodec, type UsageEvent } from '../src/index.js';

export async function followOnce(file: string, agent: string, storePath: string): Promise<{ newUsage: number; restarted: boolean }> {
  const codec = getCodec(agent);
  const store = await CursorStore.open(storePath);
  let restarted = false;
  let newUsage = 0;
  for await (const event of codec.read(file, {
    kinds: ['usage'],
    resume: {
      from: store.get(file),
      onStart: (s) => {
        restarted = s.restarted;
        newUsage -= s.replaced.usage ?? 0; // those are re-yielded below
      },
      onCursor: (u) => store.set(file, u.cursor),
    },
  })) {
    newUsage += 1;
    void (event as UsageEvent);
  }
  await store.save();
  return { newUsage, restarted };
}

if (process.argv[1]?.endsWith('resume-a-growing-file.js') && process.argv[2]) {
  const r = await followOnce(process.argv[2], process.argv[3] ?? 'claude', `${process.env.HOME}/.cache/sessionfold/example-cursors.json`);
  console.log(r);
}
