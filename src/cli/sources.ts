/**
 * The source report (src/scan/sources.ts) for humans, on stderr, in one compact block: the roots read and
 * their session-file counts (on a terminal, or when asked), then one warning per problem: a root that cannot
 * be read and why, folders or files under a root left out, an agent's own variable naming a folder that does
 * not exist, and an agent the user asked for without any history.
 */
import { homedir } from 'node:os';
import type { SourceReport } from '../scan/sources.js';

/** `p` with the home folder as `~`. */
export function tilde(p: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir();
  return home && p.startsWith(home + '/') ? `~${p.slice(home.length)}` : p;
}

export interface SourceNoteOptions {
  env: NodeJS.ProcessEnv;
  /** Codec ids the user named (`--agent`, a positional): each without any history is said plainly. */
  asked?: readonly string[] | undefined;
  /** Name the roots read too, not only the problems. */
  verbose: boolean;
  /** The scan already named each folder or file it could not read (a cost scan's warnings): no count line. */
  scanWarned?: boolean;
  /** Say which agents record no token usage (a cost report). */
  usageNotes?: boolean;
  /** The first words of the roots line (default `sources:`). */
  lead?: string;
}

/**
 * sessionfold's own formats (its exports and its session store): created when first written, so a folder of
 * theirs that is missing or empty is no news.
 */
const OWN_FORMATS = new Set(['sessionfold-jsonl', 'store']);

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The lines of the block (each without its line feed); none when there is nothing to say. */
export function sourceNotes(reports: readonly SourceReport[], o: SourceNoteOptions): string[] {
  const t = (p: string): string => tilde(p, o.env);
  const lines: string[] = [];
  const found = reports.filter((s) => s.status === 'found');
  if (o.verbose && found.length > 0) lines.push(`${o.lead ?? 'sources:'} ${found.map((s) => `${s.agent} ${t(s.root)} (${plural(s.files, 'file')})`).join(', ')}`);
  const variables = new Set<string>();
  for (const s of reports) {
    if (s.status === 'unreadable') lines.push(`warning: ${s.agent}: cannot read ${t(s.root)} (${s.reason ?? 'unknown'}): its sessions are left out`);
    else if (s.status === 'missing' && s.variable !== undefined && !variables.has(s.variable) && !OWN_FORMATS.has(s.agent)) {
      variables.add(s.variable);
      lines.push(`warning: ${s.variable} is set to ${o.env[s.variable]}, which does not exist: no ${s.agent} history is read from it`);
    }
    if (s.status === 'found' && s.unreadable > 0 && o.scanWarned !== true) lines.push(`warning: ${s.agent}: ${plural(s.unreadable, 'folder or file', 'folders or files')} under ${t(s.root)} could not be read: their sessions are left out`);
  }
  // An agent that records no tokens: its sessions are in no total, and the report says so.
  const unrecorded = new Map<string, number>();
  for (const s of reports) if (s.usageRecorded === false && s.files > 0) unrecorded.set(s.agent, (unrecorded.get(s.agent) ?? 0) + s.files);
  if (o.usageNotes === true) for (const [agent, n] of unrecorded) lines.push(`note: ${agent}: ${plural(n, 'session file')}; the agent records no token usage, so their usage is unknown and not in this report`);
  for (const agent of o.asked ?? []) {
    const mine = reports.filter((s) => s.agent === agent);
    if (mine.length === 0 || mine.some((s) => s.files > 0) || OWN_FORMATS.has(agent)) continue;
    const where = mine.map((s) => t(s.root)).join(', ');
    lines.push(`warning: no ${agent} history ${mine.some((s) => s.status === 'unreadable') ? 'could be read' : 'found'} (looked in ${where})`);
  }
  return lines;
}

/** Print the block on `stderr`. */
export function writeSourceNotes(stderr: NodeJS.WritableStream, reports: readonly SourceReport[], o: SourceNoteOptions): void {
  const lines = sourceNotes(reports, o);
  if (lines.length > 0) stderr.write(`${lines.join('\n')}\n`);
}

/** Whether stderr is a terminal: the roots line is printed there, as the progress bar is. */
export function stderrIsTerminal(stderr: NodeJS.WritableStream): boolean {
  return (stderr as NodeJS.WriteStream).isTTY === true;
}

/** The count of what could not be read, for `--json`: unreadable roots, and folders and files under found ones. */
export function unreadableCount(reports: readonly SourceReport[]): number {
  let n = 0;
  for (const s of reports) n += s.unreadable + (s.status === 'unreadable' ? 1 : 0);
  return n;
}
