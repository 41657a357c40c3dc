/**
 * Lets every `bench/<topic>.bench.ts` run on its own: `node dist/bench/<topic>.bench.js [--in-process]`
 * runs that topic through the runner (each case in a child process).
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Topic } from './harness.js';

/** Run `topic` when the module at `moduleUrl` is the process's entry point. */
export async function runTopicMain(moduleUrl: string, topic: Topic): Promise<void> {
  const entry = process.argv[1];
  if (entry === undefined || moduleUrl !== pathToFileURL(realpathSync(entry)).href) return;
  const { runTopics } = await import('./runner.js');
  const reports = await runTopics({ topics: [topic.name], inProcess: process.argv.includes('--in-process'), json: process.argv.includes('--json') });
  if (reports.some((r) => r.status === 'failed')) process.exitCode = 1;
}
