// A child process for test/native-teardown.test.ts: starts Workers whose native scans are in flight on the
// engines' threads and terminates them (their environments finalize the engine's projection and free their
// threadsafe functions meanwhile), then scans the same files itself and prints its event count. Arguments: the
// built package's folder, the number of Workers, a file listing the paths to scan (one per line).
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const [dist, rounds, list] = process.argv.slice(2);
const files = readFileSync(list, 'utf8').split('\n').filter((l) => l !== '');
const codec = pathToFileURL(`${dist}/codecs/claude/index.js`).href;
for (let i = 0; i < Number(rounds); i++) {
  const w = new Worker(new URL('./scan-forever.mjs', import.meta.url), { workerData: { codec, files } });
  await once(w, 'message');
  await delay(i % 4);
  await w.terminate();
  globalThis.gc?.();
}
const { claude } = await import(codec);
const results = await claude.scanUsage(files);
let events = 0;
for (const r of results ?? []) if (r) events += r.events.length;
process.stdout.write(JSON.stringify({ events }));
