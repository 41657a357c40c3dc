/**
 * Where fixtures/dsh keeps what (its README): the session ids, the roots (`~/.dsh/sessions` and Cherry Studio's
 * dsh folder in `home/`, compressed; `sdk-sessions/`, plain, for `$DSH_SESSION_ROOT`) and each log by name (an
 * older generation as `<id>.v<N>`), for the dsh suites.
 */
import { join } from 'node:path';

export const DSH_FIXTURES = new URL('../../fixtures/dsh/', import.meta.url).pathname;
export const DSH_EXPECTED = new URL('../../fixtures/expected/dsh/', import.meta.url).pathname;
export const HOME_ROOT = join(DSH_FIXTURES, 'home', '.dsh', 'sessions');
export const SDK_ROOT = join(DSH_FIXTURES, 'sdk-sessions');
export const CHERRY_ROOT = join(DSH_FIXTURES, 'home', '.config', 'CherryStudio', 'Data', 'Agents', '.dsh', 'sessions');
export const SHOP = join(HOME_ROOT, '--home-dev-shop-api--');
export const NOTES = join(SDK_ROOT, '--home-dev-notes--');

export const MAIN = 'session-6f1d2c3a-8b4e-4f5a-9c7d-1e2f3a4b5c6d';
export const FORK = 'session-0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d';
export const SUB = 'session-3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f';
export const N0 = 'session-1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9';
export const N3 = 'session-9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a';
export const CHERRY = 'cherry-agent-session-7d2e';
/** Every session's current generation, as discovery lists them. */
export const CURRENT = [MAIN, FORK, SUB, N0, N3, CHERRY];

/** Each log by name: a session's current generation under its id, an older one as `<id>.v<N>`. */
export const LOGS: Record<string, string> = {
  [MAIN]: join(SHOP, MAIN, 'session.v3.jsonl.zstd'),
  [`${MAIN}.v0`]: join(SHOP, MAIN, 'session.jsonl.zstd'),
  [FORK]: join(SHOP, FORK, 'session.v3.jsonl.zstd'),
  [SUB]: join(SHOP, SUB, 'session.v3.jsonl.zstd'),
  [N0]: join(NOTES, N0, 'session.jsonl'),
  [N3]: join(NOTES, N3, 'session.v3.jsonl'),
  [`${N3}.v2`]: join(NOTES, N3, 'session.v2.jsonl'),
  [CHERRY]: join(CHERRY_ROOT, '--home-dev-site--', CHERRY, 'session.v3.jsonl.zstd'),
};
