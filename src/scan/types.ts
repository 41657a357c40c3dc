/**
 * The contract between the scan engine (discovery, event cache, worker pool) and the folds that consume
 * usage (totals, export). `scanUsage()` yields usage records of every selected file; the same response can
 * appear in several files (resumed / forked sessions), so consumers count each `dedupKey` once.
 */
import type { UsageEvent } from '../events.js';

export interface UsageRecord extends UsageEvent {
  /** The file the event came from. */
  file: string;
  /** The session's working directory (from the file's `session` event), when known. */
  cwd?: string;
}

export interface ScanOptions {
  /** Codec ids or aliases; default: every registered codec. */
  agents?: string[];
  /** Per-agent roots overriding the codecs' defaults. */
  roots?: Record<string, string[]>;
  /** Files whose mtime is before this can be skipped when the codec declares `eventsPrecedeMtime`. */
  since?: Date;
  /** Use the event cache (default true). */
  cache?: boolean;
  cachePath?: string;
  /** Worker threads (default: min(cores, 4)); 0 parses on the main thread. */
  workers?: number;
  env?: NodeJS.ProcessEnv;
  /** Progress: bytes done of total bytes to read. */
  onProgress?: (done: number, total: number) => void;
  /** Warnings (corrupt cache moved aside, unreadable files). */
  onWarning?: (message: string) => void;
}
