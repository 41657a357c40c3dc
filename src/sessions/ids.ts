/**
 * Unified session ids: `<agent>:<nativeId>`. Both directions are pure (no I/O). The agent part is a registry
 * name (id or alias); the native part is kept byte for byte, colons included, so `resolveNativeId` splits on
 * the first colon only.
 */
import { findCodec } from '../registry.js';
import type { AgentName } from './types.js';

/**
 * `<agent>:<nativeId>`. Pure: no existence check, no validation.
 * @example resolveUnifiedId('claude', 'a1b2') // 'claude:a1b2'
 */
export function resolveUnifiedId(agent: AgentName, nativeId: string): string {
  return `${agent}:${nativeId}`;
}

/**
 * Split a unified id on its first colon. Null when there is no colon, either side is empty, or the agent part
 * names no registered codec. `agent` is the codec's canonical id (an alias resolves to its id).
 * @example resolveNativeId('codex:rollout:1') // { agent: 'codex', nativeSessionId: 'rollout:1' }
 */
export function resolveNativeId(unifiedId: string): { agent: AgentName; nativeSessionId: string } | null {
  const i = unifiedId.indexOf(':');
  if (i <= 0 || i === unifiedId.length - 1) return null;
  const codec = findCodec(unifiedId.slice(0, i));
  if (codec === undefined) return null;
  return { agent: codec.id, nativeSessionId: unifiedId.slice(i + 1) };
}
