/**
 * Hermes's older per-session JSON logs (`~/.hermes/sessions/session_<id>.json`, before `state.db`; the
 * fixtures in ../shared/fixtures/real/hermes): `{ session_id, model, platform, session_start, last_updated,
 * cwd | model_config.cwd, messages: [{ role, content, reasoning?, tool_calls?, tool_call_id?, tool_name?,
 * finish_reason? }] }`. They record no tokens. A `session_start` without a zone (seen in a drifted log) is
 * taken as UTC, as Hermes writes UTC.
 */
import { readFileSync } from 'node:fs';
import { SessionfoldError } from '../../cursors/protocol/errors.js';
import { openError } from '../../cursors/open-file.js';
import type { CollectedRead } from '../../cursors/read-collected.js';
import { CODEC_ID, emitMessage, sessionEvent, type EmitTarget, type HermesMessageRow } from './parse.js';

const ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

/** An ISO timestamp as epoch seconds, a zoneless one as UTC; undefined when it is not one. */
function secondsOf(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const ms = Date.parse(ZONE.test(v) ? v : `${v}Z`);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function readLegacyLog(file: string, out: EmitTarget): CollectedRead {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (e) {
    throw openError(file, e, CODEC_ID);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (e) {
    throw new SessionfoldError('PARSE_ERROR', `Not a Hermes session log (invalid JSON): ${file}`, { agent: CODEC_ID, file, cause: e });
  }
  if (!isObject(doc) || typeof doc.session_id !== 'string' || !Array.isArray(doc.messages)) {
    throw new SessionfoldError('PARSE_ERROR', `Not a Hermes session log (no session_id and messages): ${file}`, { agent: CODEC_ID, file });
  }
  const id = doc.session_id;
  const cfg = isObject(doc.model_config) ? doc.model_config : {};
  if (out.kinds.has('session')) {
    out.emit(
      sessionEvent(
        {
          id,
          source: text(doc.platform),
          model: text(doc.model),
          model_config: JSON.stringify(cfg),
          started_at: secondsOf(doc.session_start) ?? null,
          cwd: text(doc.cwd) ?? text(cfg.cwd),
        },
        0,
      ),
    );
  }
  let skipped = 0;
  doc.messages.forEach((m, i) => {
    if (!isObject(m)) {
      skipped++;
      return;
    }
    const row: HermesMessageRow = {
      id: i + 1,
      role: text(m.role),
      content: text(m.content),
      tool_call_id: text(m.tool_call_id),
      tool_name: text(m.tool_name),
      finish_reason: text(m.finish_reason),
      reasoning: text(m.reasoning),
      reasoning_content: text(m.reasoning_content),
      timestamp: secondsOf(m.timestamp) ?? null,
    };
    emitMessage(row, id, m.tool_calls, out);
  });
  return { records: doc.messages.length + 1, bytes: raw.length, skipped };
}
