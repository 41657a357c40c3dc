/**
 * A small declarative command model (citty-like): each command is a lazily imported module under
 * src/cli/commands/ that exports `default` as a CommandDef. Arguments are parsed with node:util parseArgs.
 * A CliError or a SessionfoldError is a user error: one clear line with its code, the usage after a mistake in
 * the command line (isCommandLineMistake), exit 1. Any other exception is a bug and prints its stack.
 */
import { parseArgs } from 'node:util';
import type { ErrorCode } from '../../cursors/protocol/errors.js';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import type { RenderIo } from './render/io.js';

export interface OptionDef {
  type: 'string' | 'boolean';
  short?: string;
  description: string;
  multiple?: boolean;
  default?: string | boolean;
  /** Shown in usage, e.g. `<file>`. */
  valueName?: string;
  /** Shown without brackets in the usage line; the command checks that it was given. */
  required?: boolean;
  /** Options of one `oneOf` name share a bracket in the usage line: `[--full | --lazy]`. */
  oneOf?: string;
  /** A boolean whose `--no-<name>` means something: shown as `--<name>|--no-<name>`. */
  negatable?: boolean;
}

export interface CommandContext {
  positionals: string[];
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export interface CommandDef {
  name: string;
  description: string;
  /**
   * The operands after the command name, e.g. `<file|->` (`''` for none). The options follow in the usage line,
   * made from `options` (usageOptions), so the line cannot leave one out.
   */
  usage: string;
  options: Record<string, OptionDef>;
  /** Sub-commands (e.g. `sessions list`), lazily loaded. */
  subCommands?: Record<string, () => Promise<{ default: CommandDef }>>;
  run?(ctx: CommandContext): Promise<number | void>;
  /**
   * A served command (`cost report`, `sessions list`) is two steps instead of `run`: `compute`, plain
   * JSON-serializable data (what `serve` runs and sends), and `render`, that data as text on the streams of
   * whichever process shows it (the local run's, or the serve client's: served.ts), returning the exit code.
   */
  compute?(ctx: CommandContext): Promise<unknown>;
  render?(data: never, io: RenderIo): number;
}

/** A user error: printed as one line with its code, then the usage when it is a mistake in the command line (isCommandLineMistake); exit 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export function defineCommand(def: CommandDef): CommandDef {
  return def;
}

/** Usage lines wrap before this many columns, continued under the first operand. */
const USAGE_WIDTH = 100;

/** The usage line's option words, one per option of the table (see OptionDef's `required`, `oneOf`, `negatable`). */
export function usageOptions(def: CommandDef): string[] {
  const words: { flags: string[]; required: boolean }[] = [];
  const groups = new Map<string, string[]>();
  for (const [name, o] of Object.entries(def.options)) {
    const flag = `--${name}${o.negatable ? `|--no-${name}` : ''}${o.type === 'string' ? ` ${o.valueName ?? '<value>'}` : ''}`;
    const group = o.oneOf === undefined ? undefined : groups.get(o.oneOf);
    if (group !== undefined) {
      group.push(flag);
      continue;
    }
    const flags = [flag];
    if (o.oneOf !== undefined) groups.set(o.oneOf, flags);
    words.push({ flags, required: o.required === true });
  }
  return words.map((w) => (w.required ? w.flags.join(' | ') : `[${w.flags.join(' | ')}]`));
}

/** `Usage: <prefix> <operands> <options>`, wrapped at USAGE_WIDTH. */
function usageLine(def: CommandDef, prefix: string): string {
  const head = `Usage: ${prefix}`;
  const indent = ' '.repeat(head.length + 1);
  const lines: string[] = [];
  let line = head;
  for (const word of [...(def.usage === '' ? [] : [def.usage]), ...usageOptions(def)]) {
    if (line !== head && line.length + 1 + word.length > USAGE_WIDTH) {
      lines.push(line);
      line = indent + word;
    } else line += ` ${word}`;
  }
  return [...lines, line].join('\n');
}

/** The help text: the usage line, the description, the sub-commands (with `subDescriptions`, what each does), the options. */
export function formatUsage(def: CommandDef, prefix: string, subDescriptions: Record<string, string> = {}): string {
  const lines = [usageLine(def, prefix), '', def.description];
  if (def.subCommands) {
    lines.push('', 'Commands:');
    const names = Object.keys(def.subCommands);
    const width = Math.max(...names.map((n) => n.length));
    for (const name of names) lines.push(`  ${name.padEnd(width)}  ${subDescriptions[name] ?? ''}`.trimEnd());
  }
  const opts = Object.entries(def.options);
  if (opts.length > 0) {
    lines.push('', 'Options:');
    for (const [name, o] of opts) {
      const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.valueName ?? '<value>'}` : ''}`;
      lines.push(`  ${flag.padEnd(32)} ${o.description}`);
    }
  }
  return lines.join('\n') + '\n';
}

export function parseCommandArgs(def: CommandDef, argv: string[]): { positionals: string[]; values: CommandContext['values'] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean; default?: string | boolean }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, o] of Object.entries(def.options)) {
    options[name] = { type: o.type, ...(o.short && { short: o.short }), ...(o.multiple && { multiple: true }), ...(o.default !== undefined && { default: o.default }) };
  }
  try {
    const r = parseArgs({ args: argv, options, allowPositionals: true, strict: true, allowNegative: true } as Parameters<typeof parseArgs>[0]);
    return { positionals: r.positionals, values: r.values as CommandContext['values'] };
  } catch (e) {
    throw new CliError('USAGE_ERROR', (e as Error).message);
  }
}

/**
 * Whether `e` is a mistake in the command line, which the command's usage follows: a USAGE_ERROR or an
 * INVALID_OPTION, whichever step found it (the argument parser, the command's own checks, or the library
 * checking what the command passed on, such as `--tz` or `--since`), so an option checked late reads as one
 * checked early; an agent name that names none (AGENT_NOT_FOUND); a `--prices` file (in `given`, the
 * command's option values) that does not exist. An error about a file's content is no such mistake: an
 * INVALID_OPTION whose `file` is set (a tags file), a prices file that is there but bad, a file no agent claims.
 */
export function isCommandLineMistake(e: unknown, given?: CommandContext['values']): boolean {
  if (e instanceof CliError) return e.code === 'USAGE_ERROR' || e.code === 'INVALID_OPTION' || e.code === 'AGENT_NOT_FOUND';
  if (!(e instanceof SessionfoldError)) return false;
  if (e.code === 'PRICE_ERROR') return typeof given?.prices === 'string' && isMissingPath(e.cause);
  return (e.code === 'USAGE_ERROR' || e.code === 'INVALID_OPTION' || e.code === 'AGENT_NOT_FOUND') && e.file === undefined;
}

/** An error of opening a path that names nothing (no such file, or a file where a folder should be). */
function isMissingPath(cause: unknown): boolean {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Map a thrown error to the CLI's output and exit code: a coded error is one line `error <CODE>: <message>`
 * (the first line of stderr, for scripts), then `usage` after a mistake in the command line
 * (isCommandLineMistake, of the option values `given`), exit 1; anything else is a bug: its stack, exit 2.
 */
export function reportError(e: unknown, stderr: NodeJS.WritableStream, usage?: string, given?: CommandContext['values']): number {
  if (e instanceof CliError || e instanceof SessionfoldError) {
    stderr.write(`error ${e.code}: ${e.message}\n`);
    if (usage !== undefined && isCommandLineMistake(e, given)) stderr.write(`\n${usage}`);
    return 1;
  }
  stderr.write(`${(e as Error)?.stack ?? String(e)}\n`);
  return 2;
}

/** Read a string option. */
export function str(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.values[name];
  return typeof v === 'string' ? v : undefined;
}
/** Read a boolean option. */
export function bool(ctx: CommandContext, name: string): boolean {
  return ctx.values[name] === true;
}

/** `--no-cache` was given: the argument parser reads it as the negation of `cache` (or as itself). */
export function noCache(ctx: CommandContext): boolean {
  return ctx.values.cache === false || bool(ctx, 'no-cache');
}
/** Read a comma-separated (or repeated) list option. */
export function list(ctx: CommandContext, name: string): string[] | undefined {
  const v = ctx.values[name];
  if (v === undefined) return undefined;
  const parts = (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(','));
  return parts.map((s) => s.trim()).filter(Boolean);
}
