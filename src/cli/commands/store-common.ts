/**
 * What the `store` sub-commands share: the `--store` option, the store it names (default: the `store`
 * agent's root, `$SESSIONFOLD_STORE_DIR` else `$XDG_DATA_HOME/sessionfold/sessions`), the manager options
 * that read a store at a non-default root as the `store` agent, and a name argument.
 */
import { defaultStoreRoot } from '../../store/root.js';
import { SessionStore } from '../../store/store.js';
import type { SessionManagerOptions } from '../../sessions/types.js';
import { CliError, str, type CommandContext, type OptionDef } from '../command.js';

export const STORE_OPTION: Record<string, OptionDef> = {
  store: { type: 'string', description: 'The store folder (default $SESSIONFOLD_STORE_DIR or $XDG_DATA_HOME/sessionfold/sessions)', valueName: '<dir>' },
};

export const JSON_OPTION: Record<string, OptionDef> = {
  json: { type: 'boolean', description: 'Print JSON' },
};

export function storeRoot(ctx: CommandContext): string {
  return str(ctx, 'store') ?? defaultStoreRoot(ctx.env);
}

/**
 * The store, addressed without touching the disk: a read never creates it, and a change creates it only
 * when it writes a family (a mistyped `--store` with a missing session stays absent).
 */
export function storeAt(ctx: CommandContext): SessionStore {
  return SessionStore.at(storeRoot(ctx));
}

/** Manager options of the command's env, with the store agent reading this command's store. */
export function managerOptions(ctx: CommandContext): SessionManagerOptions {
  return { env: ctx.env, roots: { store: [storeRoot(ctx)] } };
}

/** The positional at `i`, or USAGE_ERROR naming what is missing. */
export function positional(ctx: CommandContext, i: number, what: string): string {
  const v = ctx.positionals[i];
  if (v === undefined || v === '') throw new CliError('USAGE_ERROR', `expected ${what}`);
  return v;
}

export function writeJson(ctx: CommandContext, value: unknown): void {
  ctx.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A non-negative integer option (`--at 0` keeps only the header; `--days 0` prunes nothing). */
export function countOption(ctx: CommandContext, name: string): number | undefined {
  const v = str(ctx, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new CliError('INVALID_OPTION', `Invalid option --${name}: expected a non-negative integer, got "${v}"`);
  return Number(v);
}
