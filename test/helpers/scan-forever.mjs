// A Worker for test/native-teardown.test.ts: loads the built Claude codec, says it is ready, then keeps its
// native engine scanning `files` until it is terminated.
import { parentPort, workerData } from 'node:worker_threads';

const { claude } = await import(workerData.codec);
let first = true;
for (;;) {
  const pending = claude.scanUsage(workerData.files);
  if (first) parentPort.postMessage('scanning');
  first = false;
  await pending;
}
