/**
 * The JSON Claude Code pipes to a status-line command, turned into `sessionfold statusline`'s own flags
 * before anything else loads (main.cts), so that the command is a served one like `cost report`: the server
 * gets flags, never a stdin. Imports nothing of the project but the error class.
 *
 * The fields read (Claude Code's status-line docs, https://code.claude.com/docs/en/statusline, "Available
 * data"): `session_id`, `transcript_path`, `model.id`, `model.display_name`,
 * `context_window.context_window_size`. The others (`cwd`, `workspace`, `version`, `cost`, `output_style`,
 * `rate_limits`…) are not needed: the costs are ours, from the transcripts.
 */
import { SessionfoldError } from '../../cursors/protocol/errors.js';

/** Whether a `statusline` command line takes its session from stdin (it names none itself). */
export function statusLineReadsStdin(argv: readonly string[]): boolean {
  if (argv[0] !== 'statusline') return false;
  return !argv.some((a) => a === '--help' || a === '-h' || /^--(session|file)(=|$)/.test(a));
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * The flags that say what Claude Code's status-line JSON says. Throws PARSE_ERROR when `text` is not a JSON
 * object naming a session (`session_id` or `transcript_path`).
 */
export function statusLineArgs(text: string): string[] {
  if (text.trim() === '') throw new SessionfoldError('PARSE_ERROR', 'statusline: nothing on standard input; pipe Claude Code\'s status-line JSON, or name the session with --session <id> / --file <path>');
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (e) {
    throw new SessionfoldError('PARSE_ERROR', `statusline: standard input is not JSON (${(e as Error).message}); Claude Code pipes its status-line JSON there`);
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new SessionfoldError('PARSE_ERROR', 'statusline: standard input is not a JSON object');
  const j = input as Record<string, unknown>;
  const session = str(j.session_id);
  const file = str(j.transcript_path);
  if (session === undefined && file === undefined) throw new SessionfoldError('PARSE_ERROR', 'statusline: the JSON names no session (neither session_id nor transcript_path)');
  const model = obj(j.model);
  const size = obj(j.context_window).context_window_size;
  const args = ['--agent', 'claude'];
  if (session !== undefined) args.push('--session', session);
  if (file !== undefined) args.push('--file', file);
  if (str(model.id) !== undefined) args.push('--model', model.id as string);
  if (str(model.display_name) !== undefined) args.push('--model-name', model.display_name as string);
  if (typeof size === 'number' && Number.isSafeInteger(size) && size > 0) args.push('--context-window', String(size));
  return args;
}

/** What is printed when the status cannot be computed: still one line, so the agent's bar is never blank. */
export function fallbackStatusLine(code: string): string {
  return `sessionfold: no status (${code})`;
}
