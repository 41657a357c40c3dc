/**
 * A child process for test/store-concurrency.test.ts: `ops` random mutations (save, fork, archive, delete,
 * retitle, prune) of the store at `root`, from a seeded generator, over a small pool of names so that two
 * workers collide. A refusal the race makes legitimate (the session is gone, the name is taken) is expected;
 * anything else exits 1. Prints `done` at the end.
 */
import { isSessionfoldError } from '../../cursors/protocol/errors.js';
import { SessionStore } from '../../src/store/store.js';

const [root, seedText, opsText] = process.argv.slice(2) as [string, string, string];
let seed = Number(seedText) >>> 0 || 1;
const rand = (n: number): number => {
  seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
  return seed % n;
};
const NAMES = ['s0', 's1', 's2', 's3', 's4'];
const pick = (): string => NAMES[rand(NAMES.length)] as string;
const transcript = (name: string, n: number): string => {
  const lines = [JSON.stringify({ type: 'sessionfold.session', version: 1, agent: 'claude', sessionId: name, title: name })];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ type: 'sessionfold.message', index: i, role: i % 2 ? 'assistant' : 'user', content: `${name} ${i} ${'x'.repeat(rand(2000))}` }));
  return `${lines.join('\n')}\n`;
};

const store = await SessionStore.open(root);
for (let i = 0; i < Number(opsText); i++) {
  const name = pick();
  try {
    switch (rand(7)) {
      case 0:
      case 1:
        await store.saveFamily(
          name,
          {
            title: `t${i}`,
            transcript: transcript(name, 2 + rand(8)),
            sidecar: '{"sidecar":true}\n',
            modelChanges: [{ messageIndex: 1, to: 'm' }],
            git: { branch: `b${i}` },
            subagents: [{ id: 'agent-a', transcript: transcript('agent-a', 2), lineage: { version: 1, parent: name, child: 'agent-a' } }],
          },
          { overwrite: true },
        );
        break;
      case 2:
        await store.fork(name, pick(), `fork ${i}`, rand(4), Date.now());
        break;
      case 3:
        await store.archive(name);
        break;
      case 4:
        await store.delete(name);
        break;
      case 5:
        await store.setTitle(name, `retitled ${i}`);
        break;
      default:
        await store.pruneExpired(1, Date.now() + 3 * 86_400_000);
    }
  } catch (e) {
    if (!isSessionfoldError(e) || (e.code !== 'SESSION_NOT_FOUND' && e.code !== 'INVALID_OPTION')) {
      console.error(e);
      process.exit(1);
    }
  }
}
console.log('done');
