/**
 * `sessionfold start` (what `npm start` runs): the main job in one screen. It looks for the user's real agent
 * folders (every registered codec's default roots); when none holds a session it says so and uses the
 * bundled demo history (`fixtures/demo`, Claude Code + Codex in their real layouts). Then it prints the most
 * recent sessions and the cost report (by day for a short history, by month for a long one).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { listCodecs } from '../../registry.js';
import { packageRoot } from '../../../cursors/versions.js';
import { createPricer } from '../../cost/pricing.js';
import { totalCost } from '../../cost/total.js';
import { renderCostSummary } from '../render/cost.js';
import { onlyUnrecorded } from '../render/cost-report.js';
import type { CostGroupBy } from '../../cost/types.js';
import { createSessionManager } from '../../sessions/manager.js';
import type { SessionSummary } from '../../sessions/types.js';
import { bool, defineCommand, noCache, type CommandContext } from '../command.js';
import { ellipsize, renderTable, summaryCells, terminalWidth } from './sessions-common.js';
import { timeZoneOf } from './cost-options.js';
import { withProgress } from '../progress.js';
import { surveySources, type SourceReport } from '../../scan/sources.js';
import { sourceNotes } from '../sources.js';

/** The demo history shipped in the package: `<package>/fixtures/demo`. */
export function demoRoot(): string {
  const root = packageRoot();
  const demo = root === undefined ? undefined : join(root, 'fixtures', 'demo');
  if (demo !== undefined && existsSync(join(demo, 'manifest.json'))) return demo;
  throw new Error('the bundled demo history (fixtures/demo) is missing from this install');
}

/** The demo history's roots, as each codec would derive them from its own env variable. */
export function demoRoots(): Record<string, string[]> {
  const root = demoRoot();
  const env = { HOME: root, CLAUDE_CONFIG_DIR: join(root, 'claude'), CODEX_HOME: join(root, 'codex') };
  const out: Record<string, string[]> = {};
  for (const id of ['claude', 'codex']) {
    const codec = listCodecs().find((c) => c.id === id);
    if (codec) out[id] = codec.defaultRoots(env);
  }
  return out;
}

/**
 * Every agent's default roots as found on disk (sessionfold's own exports are not an agent's history), and
 * the agents whose roots hold at least one session file.
 */
async function detectAgents(env: NodeJS.ProcessEnv): Promise<{ sources: SourceReport[]; agents: string[] }> {
  const sources = await surveySources(
    listCodecs().filter((c) => c.id !== 'sessionfold-jsonl'),
    env,
  );
  return { sources, agents: [...new Set(sources.filter((s) => s.files > 0).map((s) => s.agent))] };
}

export default defineCommand({
  name: 'start',
  description: 'The main job: recent sessions and the cost report over your agent folders (or the bundled demo history when there are none).',
  usage: '',
  options: {
    demo: { type: 'boolean', description: 'Use the bundled demo history even when agent folders exist' },
    'no-cache': { type: 'boolean', description: 'Read every file, without the event cache' },
  },
  async run(ctx: CommandContext) {
    const env = ctx.env;
    const out = ctx.stdout;
    const detected = bool(ctx, 'demo') ? { sources: [], agents: [] } : await detectAgents(env);
    let roots: Record<string, string[]> | undefined;
    let agents: string[];
    // On stderr: the folders read, with their session files, and any that could not be.
    const read = detected.sources.filter((s) => s.files > 0 || s.status !== 'found');
    const notes = sourceNotes(read, { env, verbose: true, lead: 'sessionfold: reading your agent history:' });
    if (notes.length > 0) ctx.stderr.write(`${notes.join('\n')}\n\n`);
    if (detected.agents.length > 0) agents = detected.agents;
    else {
      roots = demoRoots();
      agents = Object.keys(roots);
      // Where an agent's history would be (not sessionfold's own exports or session store): too many
      // folders to print, so their count, and the command that lists them.
      const looking = listCodecs().filter((c) => c.id !== 'sessionfold-jsonl' && c.id !== 'store');
      const folders = looking.reduce((n, c) => n + c.defaultRoots(env).length, 0);
      // On stderr like the folders read above: stdout is the report alone, whatever reads it.
      ctx.stderr.write(
        bool(ctx, 'demo')
          ? 'sessionfold: showing the bundled demo history (fixtures/demo), as asked.\n\n'
          : `sessionfold: no agent history found in the ${folders} default folders of ${looking.length} agents (\`sessionfold agents\`\nlists them), so this is the bundled demo history (fixtures/demo). Set an agent's own variable\n(CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME, COPILOT_HOME, …) to read its folder elsewhere.\n\n`,
      );
    }
    const cache = !noCache(ctx);
    const width = terminalWidth(ctx);

    // Recent sessions, all agents together.
    const manager = createSessionManager({ env, ...(roots && { roots }), cache });
    const recent: SessionSummary[] = [];
    await withProgress(ctx, 'Reading sessions', async () => {
      for (const agent of agents) recent.push(...(await manager.list(agent, { limit: 5, exactBytes: 16 * 1024 * 1024 })));
    });
    recent.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
    out.write('Recent sessions\n');
    const rows = recent.slice(0, 8).map((s) => {
      const c = summaryCells(s);
      return [c.updated, s.agent, c.turns, c.cost, c.model, ellipsize(s.title || '(untitled)', 80)];
    });
    out.write(renderTable(['Updated', 'Agent', 'Turns', 'Cost', 'Model', 'Title'], rows, width, new Set([2, 3])));

    // The cost report: by day for a short history, by month for a long one.
    const timeZone = timeZoneOf(ctx);
    const pricer = createPricer({ env });
    const base = { env, agents, timeZone, pricer, cache, ...(roots && { roots }) };
    let groupBy: CostGroupBy = 'day';
    // said once each, as `cost report` says them, not as Node process warnings
    const warnings: string[] = [];
    const onWarning = (m: string): void => void (warnings.includes(m) || warnings.push(m));
    const summary = await withProgress(ctx, 'Reading usage', async (p) => {
      const scan = { onProgress: p.onProgress, onWarning };
      const byDay = await totalCost({ ...base, groupBy }, scan);
      if (Object.keys(byDay.breakdowns ?? {}).length <= 31) return byDay;
      groupBy = 'month';
      return totalCost({ ...base, groupBy }, scan);
    });
    for (const w of warnings) ctx.stderr.write(`warning: ${w}\n`);
    out.write('\n');
    // Only agents that record no usage (Cursor): the report says so instead of a $0.00 total.
    const unrecorded = onlyUnrecorded(detected.sources, summary);
    out.write(renderCostSummary(summary, 'table', { groupBy, timeZone, mode: pricer.mode, unrecorded, noCache: !cache }));
    ctx.stderr.write(`\nMore: sessionfold sessions list <agent> · sessionfold cost report --group-by model · sessionfold --help\n`);
    return 0;
  },
});
