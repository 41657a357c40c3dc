/**
 * Claude Code transcript lines in their on-disk shape (key order, `parentUuid`, `requestId`, `uuid`,
 * `timestamp`), for tests that write histories: an assistant line (one content block of response
 * `msg_<msg>` / `req_<msg>`, carrying `out` output tokens) and a user prompt.
 */
export const SONNET = 'claude-sonnet-4-5-20250929';

export function claudeAssistant(sid: string, cwd: string, msg: string, out: number, ts: string, model = SONNET): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: sid,
    version: '2.0.14',
    type: 'assistant',
    message: {
      id: `msg_${msg}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: `réponse ${msg} — 世界` }],
      stop_reason: null,
      usage: { input_tokens: 7, cache_creation_input_tokens: 300, cache_read_input_tokens: 9000, output_tokens: out, service_tier: 'standard' },
    },
    requestId: `req_${msg}`,
    uuid: `u-${msg}-${out}`,
    timestamp: ts,
  });
}

export function claudeUser(sid: string, cwd: string, text: string, ts: string): string {
  return JSON.stringify({ parentUuid: null, isSidechain: false, userType: 'external', cwd, sessionId: sid, version: '2.0.14', type: 'user', message: { role: 'user', content: text }, uuid: `u-${text}`, timestamp: ts });
}
