/**
 * `npm run bench`: every benchmark topic (or those named), each case in its own child process, one table.
 *
 *   npm run bench                       # all topics at BENCH_SCALE (default 0.1)
 *   npm run bench -- codecs prefix      # some topics
 *   npm run bench -- --filter usage     # cases whose name matches
 *   npm run bench -- --json             # the reports as JSON
 *   BENCH_SCALE=1 BENCH_ITERATIONS=3 npm run bench
 *   npm run bench -- size-curve --scales 0.02,0.12 --runs 5   # ccusage against us over history size
 *   npm run bench -- peak-rss --cores 8                       # peak RSS on 500 MB files and scale 1
 *
 * Never part of `npm test`. The side-by-side comparison with other tools is `node dist/bench/peers/run.js`.
 */
import { parseArgs } from 'node:util';
import { runChild, runTopics, TOPIC_MODULES } from './lib/runner.js';

/**
 * The size curve times whole CLIs against ccusage (bench/peers), and peak-rss measures whole CLIs on the
 * largest inputs, not cases under tinybench: each has its own options.
 */
const SIZE_CURVE = 'size-curve';
const PEAK_RSS = 'peak-rss';

const sizeCurve = process.argv[2] === SIZE_CURVE;
const peakRss = process.argv[2] === PEAK_RSS;

const { values, positionals } = parseArgs({
  args: sizeCurve || peakRss ? [] : process.argv.slice(2),
  options: {
    child: { type: 'boolean' },
    filter: { type: 'string' },
    json: { type: 'boolean' },
    'in-process': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  allowPositionals: true,
});

if (sizeCurve) {
  await (await import('./peers/size-curve.js')).main(process.argv.slice(3));
} else if (peakRss) {
  await (await import('./peers/peak-rss.js')).main(process.argv.slice(3));
} else if (values.help) {
  process.stdout.write(`Usage: npm run bench -- [topic …] [--filter <regex>] [--json] [--in-process]\n       npm run bench -- ${SIZE_CURVE} [--scales 0.02,0.12,0.5,1] [--runs 5] [--keep-corpora] [--json]\n       npm run bench -- ${PEAK_RSS} [--huge-mb 500] [--scale 1] [--cores n] [--corpora claude,codex,history] [--kernels addon,wasm] [--commands <regex>] [--keep-corpora] [--json]\nTopics: ${Object.keys(TOPIC_MODULES).join(', ')} (and ${SIZE_CURVE}, ${PEAK_RSS}, run only when named)\nEnv: BENCH_SCALE, BENCH_ITERATIONS, BENCH_BIG_MB, BENCH_DIR, BENCH_SEED\n`);
} else if (values.child) {
  const [topic, name] = positionals;
  if (topic === undefined || name === undefined) throw new Error('--child needs <topic> <case>');
  await runChild(topic, name);
} else {
  const topics = positionals.length > 0 ? positionals : Object.keys(TOPIC_MODULES);
  const reports = await runTopics({
    topics,
    ...(values.filter !== undefined && { filter: new RegExp(values.filter) }),
    json: values.json === true,
    inProcess: values['in-process'] === true,
  });
  if (reports.some((r) => r.status === 'failed')) process.exitCode = 1;
}
