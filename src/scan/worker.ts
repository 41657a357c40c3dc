/**
 * The parse worker: receives ParseTasks, runs them one at a time through `parseFile` with the built-in
 * codecs of its own registry, and posts each batch of usage as a transferred segment. A worker keeps no
 * state between tasks; the main thread owns the cache and the fold.
 */
import { parentPort } from 'node:worker_threads';
import { getCodec, loadCodec } from '../registry.js';
import { parseTask, serializeError, type ParseTask, type TaskMessage } from './parse-file.js';

const port = parentPort;
if (port === null) throw new Error('scan/worker.ts must run in a worker thread');

const queue: ParseTask[] = [];
let running = false;

const post = (msg: TaskMessage, transfer?: ArrayBuffer[]): void => port.postMessage(msg, transfer ?? []);

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  try {
    for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
      let codec;
      try {
        // A task's members beyond read() (a batch's readBatch) need the codec's module: load it first.
        codec = await loadCodec(getCodec(task.agent));
      } catch (e) {
        for (const t of task.batch ?? [task]) post({ type: 'error', id: t.id, error: serializeError(e) });
        continue;
      }
      await parseTask(codec, task, post);
    }
  } finally {
    running = false;
  }
}

port.on('message', (task: ParseTask) => {
  queue.push(task);
  void drain();
});
