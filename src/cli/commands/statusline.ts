/**
 * `sessionfold statusline`: one line for an agent's status bar: model, the session's cost, today's cost, the
 * active 5-hour window with its burn rate, and the context in use (src/cost/statusline.ts computes, render/
 * statusline.ts writes). Claude Code's status-line JSON on stdin becomes the flags below in main.cts
 * (statusline-input.ts) before this runs, so a running `sessionfold serve` answers it like `cost report`;
 * other agents' hooks pass the flags themselves (`--agent codex --session <id>`, or `--file <path>`).
 *
 * A status bar must never go blank nor show a stack: a coded error prints the fallback line on stdout, the
 * error on stderr (with the usage after a mistake in the command line, as every command), and exits 0 (an
 * agent hides the output of a command that fails).
 */
import { resolve } from 'node:path';
import { SessionfoldError } from '../../../cursors/protocol/errors.js';
import { createPricer } from '../../cost/pricing.js';
import { checkCostMode } from '../../cost/types.js';
import { statusLine, type StatusLineQuery } from '../../cost/statusline.js';
import { detectCodec } from '../../registry.js';
import { createSessionManager } from '../../sessions/manager.js';
import { renderStatusLineAnswer, type StatusLineAnswer } from '../render/statusline.js';
import { tuneJitForScan } from '../jit.js';
import { CliError, bool, defineCommand, formatUsage, isCommandLineMistake, noCache, str, type CommandContext } from '../command.js';
import { checkTimeZone } from '../../cost/calendar.js';

function positiveInt(ctx: CommandContext, name: string): number | undefined {
  const v = str(ctx, name);
  if (v === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(v)) throw new CliError('INVALID_OPTION', `Invalid option --${name}: expected a whole number of tokens, got "${v}"`);
  return Number(v);
}

function instant(v: string | undefined): Date | undefined {
  if (v === undefined) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw new CliError('INVALID_OPTION', `Invalid option --now: expected an ISO time, got "${v}"`);
  return d;
}

/** The query the flags describe; the agent of a bare `--file` is told from the file. */
async function queryOf(ctx: CommandContext): Promise<StatusLineQuery> {
  if (ctx.positionals.length > 0) throw new CliError('USAGE_ERROR', `unexpected argument "${ctx.positionals[0]}"`);
  const sessionId = str(ctx, 'session');
  const fileArg = str(ctx, 'file');
  if (sessionId === undefined && fileArg === undefined) throw new CliError('USAGE_ERROR', 'statusline needs a session: Claude Code\'s status-line JSON on stdin, or --session <id> / --file <path>');
  const file = fileArg === undefined ? undefined : resolve(fileArg);
  let agent = str(ctx, 'agent');
  if (agent === undefined) {
    if (file === undefined) throw new CliError('USAGE_ERROR', 'statusline --session needs --agent <id>');
    agent = (await detectCodec(file, ctx.env)).id;
  }
  const tz = str(ctx, 'tz');
  const mode = str(ctx, 'mode');
  const prices = str(ctx, 'prices');
  const cachePath = typeof ctx.values.cache === 'string' ? ctx.values.cache : undefined;
  const contextWindow = positiveInt(ctx, 'context-window');
  const now = instant(str(ctx, 'now'));
  const model = str(ctx, 'model');
  const modelName = str(ctx, 'model-name');
  return {
    agent,
    env: ctx.env,
    ...(sessionId !== undefined && { sessionId }),
    ...(file !== undefined && { file }),
    ...(model !== undefined && { model }),
    ...(modelName !== undefined && { modelName }),
    ...(contextWindow !== undefined && { contextWindow }),
    ...(now !== undefined && { now }),
    ...(tz !== undefined && { timeZone: checkTimeZone(tz, '--tz') }),
    ...(mode !== undefined && { mode: checkCostMode(mode, '--mode') }),
    ...(prices !== undefined && { pricesFile: prices }),
    ...(cachePath !== undefined && { cachePath }),
    ...(noCache(ctx) && { cache: false }),
  };
}

/** The whole id a `--session` prefix names (SessionManager `resolveId`), when it names one other than itself. */
async function wholeSessionId(query: StatusLineQuery): Promise<string | undefined> {
  if (query.sessionId === undefined || query.file !== undefined) return undefined;
  try {
    const whole = await createSessionManager({ ...(query.env !== undefined && { env: query.env }), ...(query.roots !== undefined && { roots: query.roots }) }).resolveId(query.agent, query.sessionId);
    return whole === query.sessionId ? undefined : whole;
  } catch {
    return undefined; // no session, or several: the answer as it was says so
  }
}

const statusline = defineCommand({
  name: 'statusline',
  description: "One status-bar line for a running session: model, session cost, today's cost, the active 5-hour window and its burn rate, context used",
  usage: '[< claude-statusline.json]',
  options: {
    agent: { type: 'string', short: 'a', description: 'The session\'s agent (default claude with stdin JSON; told from the file with --file)', valueName: '<id>' },
    session: { type: 'string', description: 'The session id (instead of stdin JSON)', valueName: '<id>' },
    file: { type: 'string', description: 'The session file (instead of stdin JSON)', valueName: '<path>' },
    model: { type: 'string', description: 'The model id to show (default: the session\'s last response\'s)', valueName: '<id>' },
    'model-name': { type: 'string', description: 'The model name to show', valueName: '<name>' },
    'context-window': { type: 'string', description: 'The model\'s context window in tokens (default: genai-prices\' model data)', valueName: '<n>' },
    now: { type: 'string', description: 'The instant that counts as now (ISO time; default: the clock)', valueName: '<time>' },
    tz: { type: 'string', description: 'IANA time zone of "today" (default: local)', valueName: '<zone>' },
    mode: { type: 'string', description: 'Cost mode: auto|calculate|display (default auto)', valueName: '<mode>' },
    prices: { type: 'string', description: 'Price-override file', valueName: '<file>' },
    cache: { type: 'string', description: 'Event cache database', valueName: '<path>' },
    'no-cache': { type: 'boolean', description: 'Read the files without the event cache' },
    json: { type: 'boolean', description: 'Print the data object instead of the line' },
  },
  /** The compute step (all `serve` runs): the status data, or the coded error a fallback line shows, as plain data. */
  async compute(ctx: CommandContext): Promise<StatusLineAnswer> {
    const warnings: string[] = [];
    const json = bool(ctx, 'json');
    try {
      const query = await queryOf(ctx);
      const pricer = createPricer({ env: ctx.env, ...(query.mode !== undefined && { mode: query.mode }), ...(query.pricesFile !== undefined && { pricesFile: query.pricesFile }) });
      tuneJitForScan(ctx.env); // discovery lists and stats every file of the history, warm or not (jit.ts)
      let data = await statusLine({ ...query, pricer }, { onWarning: (m) => void warnings.push(m) });
      const whole = data.sessionFound ? undefined : await wholeSessionId(query);
      // a person's --session may be the first characters of an id, as every `sessions` command takes it;
      // looked up only when the id as given found nothing, so a status bar's whole ids cost nothing more
      if (whole !== undefined) {
        warnings.length = 0;
        data = await statusLine({ ...query, sessionId: whole, pricer }, { onWarning: (m) => void warnings.push(m) });
      }
      return { json, warnings, data };
    } catch (e) {
      const code = e instanceof CliError || e instanceof SessionfoldError ? e.code : undefined;
      if (code === undefined) throw e;
      // The usage after a mistake in the command line, as every command prints it (command.ts); sent as data, so a served run prints it too.
      return { json, warnings, error: { code, message: (e as Error).message, ...(isCommandLineMistake(e, ctx.values) && { usage: formatUsage(statusline, 'sessionfold statusline') }) } };
    }
  },
  render: renderStatusLineAnswer,
});

export default statusline;
