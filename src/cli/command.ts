/**
 * A small declarative command model (citty-like): each command is a lazily imported module under
 * src/cli/commands/ that exports `default` as a CommandDef. Arguments are parsed with node:util parseArgs.
 * A CliError is a user error: one clear line with its code, the usage, exit 1. Any other exception is a bug
 * and prints its stack.
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
  /** Usage line after the command name, e.g. `<file> --agent <id>`. */
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

/** A user error: printed as one line with its code, then the usage; exit 1. */
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

export function formatUsage(def: CommandDef, prefix: string): string {
  const lines = [`Usage: ${prefix} ${def.usage}`.trimEnd(), '', def.description];
  if (def.subCommands) {
    lines.push('', 'Commands:');
    for (const name of Object.keys(def.subCommands)) lines.push(`  ${name}`);
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

/** Map a thrown error to the CLI's output and exit code. */
export function reportError(e: unknown, stderr: NodeJS.WritableStream, usage?: string): number {
  if (e instanceof CliError) {
    stderr.write(`error ${e.code}: ${e.message}\n`);
    if (usage) stderr.write(`\n${usage}`);
    return 1;
  }
  if (e instanceof SessionfoldError) {
    stderr.write(`error ${e.code}: ${e.message}\n`);
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
