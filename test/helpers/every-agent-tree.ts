/**
 * One tree holding a sample of every agent (issues 18 and 22): in a temp dir, a fake HOME in which each
 * registered file or database agent's real fixtures (../shared/fixtures/real/<agent>/) and the repo's own
 * samples (fixtures/<agent>/) sit at the agent's default layout, found through HOME and XDG_* alone. Databases
 * are copied or written (read-only opens must work on them); nothing is symlinked.
 *
 * `AGENT_TREE` has one entry per agent id: how its fixtures are laid out, which golden event files
 * (fixtures/expected/<agent>/) describe what was placed, how many sessions `sessions list` shows, and what the
 * format records. A new codec adds an entry of a few lines; test/every-agent.test.ts fails until it does.
 */
import { cp, copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { layOutAntigravity } from './antigravity-layout.js';
import { layOutKimi } from './kimi-layout.js';
import { writeGooseDb } from '../goose-helpers.js';
import { buildHermesDb } from './hermes-db.js';
import { buildZcodeDb } from './zcode-db.js';
import { buildDevinDb } from './devin-db.js';
import { layOutCrush } from './crush-db.js';
import { buildMimoDb } from './mimo-db.js';
import { layOutKiro } from './kiro-layout.js';
import { layOutZed } from './zed-db.js';
import Database from 'better-sqlite3';
import { CLAUDE_COPIES } from '../sessions-helpers.js';

const SHARED = fileURLToPath(new URL('../../../shared/fixtures/real/', import.meta.url));
const OWN = fileURLToPath(new URL('../../fixtures/', import.meta.url));
export const EXPECTED = join(OWN, 'expected');

/** What an entry's `layOut` gets: the tree's HOME and the agent's real and own fixture folders. */
export interface TreeContext {
  home: string;
  real: string;
  own: string;
}

export interface AgentTreeEntry {
  /** Place the agent's fixtures under `ctx.home` as the agent lays them out by default. */
  layOut(ctx: TreeContext): Promise<void>;
  /** Golden event files (`fixtures/expected/<agent>/<name>.events.jsonl`) of what `layOut` placed. */
  goldens: readonly string[];
  /**
   * Placed files no golden file describes (the repo's constructed samples), relative to HOME: their usage is
   * taken from a read of the file itself.
   */
  unGolden?: readonly string[];
  /** Sessions `sessions list` shows for the tree (subagent transcripts are not listed). */
  sessions: number;
  /**
   * `tokens`: the samples record usage, so the report has a row equal to the golden totals. `none`: these
   * samples hold no usage although the format can (no row). `unrecorded`: the agent records no tokens at
   * all (no row; its sessions carry no cost, never a measured $0).
   */
  usage: 'tokens' | 'none' | 'unrecorded';
  /** `sessions list` gives some session of the agent a title / a cwd (false: its samples state none). */
  titles: boolean;
  cwd: boolean;
}

/** Copy `from` to `to`, making its folder. */
async function put(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await copyFile(from, to);
}

const jsonlIn = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort();

/** Gemini CLI: each fixture's project folder (a slug or a hash) and the name the CLI gives it. */
const GEMINI: Record<string, [string, string]> = {
  'agent-sessions-jsonl-v0.40.jsonl': ['proj-a', 'session-2026-04-29T21-39-gemini_s.jsonl'],
  'agent-sessions-chat-small.json': ['0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9', 'session-2026-01-16T18-34-3739ef95.json'],
  'agent-sessions-chat-large.json': ['205016864bd110904e9ad8314192344ab398d043e779da15bedbb9ee9be00da2', 'session-2025-12-16T23-47-b4f17607.json'],
  'agentsview-thinking-only.json': ['abc123def456', 'session-2024-01-01T10-00-sess-uui.json'],
  'agentsview-tool-calls.json': ['abc123def456', 'session-2024-01-01T10-00-sess-uu2.json'],
};

/** Claude Code: the real transcripts under one project folder, named by a session uuid (as the sessions tests do). */
const CLAUDE = CLAUDE_COPIES;

/** The copilot `session.start` id of a flat log (its file name in `session-state/`). */
async function copilotId(file: string): Promise<string> {
  const first = JSON.parse((await readFile(file, 'utf8')).split('\n')[0] as string) as { data: { sessionId: string } };
  return first.data.sessionId;
}

/** A VS Code extension of the Cline family: the repo's task folders under `<editor>/User/globalStorage/<id>/tasks`. */
function vscodeTasks(editor: string, extension: string, tasks: readonly string[]): AgentTreeEntry {
  return {
    async layOut({ home, own }) {
      await cp(join(own, 'tasks'), join(home, '.config', editor, 'User', 'globalStorage', extension, 'tasks'), { recursive: true });
    },
    goldens: tasks,
    sessions: tasks.length,
    usage: 'tokens',
    titles: true,
    cwd: true,
  };
}

/**
 * An agent keeping pi's files under its own folder (Senpi, Kimchi, gajae-code): the repo's constructed session
 * (fixtures/<agent>/, no real one is public) copied to `~/<folder>`, one session with a title and a cwd.
 */
function piFork(folder: readonly string[], golden: string): AgentTreeEntry {
  return {
    async layOut({ home, own }) {
      await cp(own, join(home, ...folder), { recursive: true });
    },
    goldens: [golden],
    sessions: 1,
    usage: 'tokens',
    titles: true,
    cwd: true,
  };
}

/**
 * Every agent of the registry, by id. `sessionfold-jsonl` (sessionfold's own exports) and `store` (its session
 * store) are not agents' histories: they have no entry; the test names them as its only exclusions.
 */
export const AGENT_TREE: Record<string, AgentTreeEntry> = {
  claude: {
    // the real transcripts (and the 2.1 subagent layout) in one project, and the repo's constructed projects
    async layOut({ home, real, own }) {
      const proj = join(home, '.claude', 'projects', '-tmp-proj');
      for (const [name, id] of Object.entries(CLAUDE)) await put(join(real, name), join(proj, `${id}.jsonl`));
      await cp(join(real, 'agent-sessions-subagent'), proj, { recursive: true });
      await cp(join(own, 'projects'), join(home, '.claude', 'projects'), { recursive: true });
    },
    goldens: [...Object.keys(CLAUDE).map((n) => n.replace(/\.jsonl$/, '')), 'agent-sessions-subagent.parent', 'agent-sessions-subagent.agent-a0ad4f44468bdf20d'],
    unGolden: [
      '.claude/projects/-Users-dev-app/11111111-2222-4333-8444-555555555555.jsonl',
      '.claude/projects/-Users-dev-app/11111111-2222-4333-8444-555555555555/subagents/agent-abc123.jsonl',
      '.claude/projects/-Users-dev-app/22222222-3333-4444-8555-666666666666.jsonl',
      '.claude/projects/-Users-dev-other/agent-deadbeef.jsonl',
      '.claude/projects/-Users-dev-titles/44444444-5555-4666-8777-888888888888.jsonl',
      '.claude/projects/-Users-dev-titles/44444444-5555-4666-8777-888888888888/subagents/agent-b2.jsonl',
    ],
    sessions: 4 + 1 + 3, // the real ones and the subagent's parent; the constructed app, fork and titles sessions
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  'cherry-studio': {
    // Cherry Studio's userData on Linux: the v2 folder and a v1 copy of one transcript (counted once), and
    // its pi runtime's sessions (one imported with no usage)
    async layOut({ home, own }) {
      await cp(own, join(home, '.config', 'CherryStudio'), { recursive: true });
    },
    goldens: ['7d3f1c2a-8b4e-4f6a-9c0d-1e2f3a4b5c6d', '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', '019f1c2d-3e4a-7b5c-8d6e-7f8091a2b3c4', '019f0a00-1b2c-7d3e-8f40-5a6b7c8d9e0f'],
    sessions: 2 + 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  cowork: {
    // Claude Desktop's data folder on Linux: a task's transcript and an agent-type task's
    async layOut({ home, own }) {
      await cp(own, join(home, '.config', 'Claude'), { recursive: true });
    },
    goldens: ['c0a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b', 'e1f2a3b4-c5d6-4e7f-9081-a2b3c4d5e6f7'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  codex: {
    // the real rollouts on one day of ~/.codex/sessions, and the repo's constructed live and archived ones
    async layOut({ home, real, own }) {
      let n = 0;
      for (const name of await jsonlIn(real)) {
        const text = await readFile(join(real, name), 'utf8');
        const id = /"type":"session_meta","payload":\{"id":"([0-9a-f-]{36})"/.exec(text)?.[1] ?? `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
        await put(join(real, name), join(home, '.codex', 'sessions', '2026', '08', '03', `rollout-2026-08-03T10-00-0${n}-${id}.jsonl`));
      }
      await cp(own, join(home, '.codex'), { recursive: true });
    },
    goldens: ['agent-sessions-codex_050_legacy', 'agent-sessions-codex_053_rate_limit', 'agent-sessions-v0.146-sanitized', 'ccusage-branch-history-branch', 'ccusage-branch-history-parent'],
    unGolden: [
      '.codex/archived_sessions/rollout-2025-10-01T12-00-00-01999f36-e900-7a00-8000-000000000001.jsonl',
      '.codex/archived_sessions/rollout-2025-09-20T08-00-00-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl',
      '.codex/sessions/2026/01/15/rollout-2026-01-15T10-30-00-019bc0fd-89c0-7c00-8000-00000000000c.jsonl',
      '.codex/sessions/2025/10/02/rollout-2025-10-02T10-00-00-01999f37-0000-7b00-8000-00000000000b.jsonl',
      '.codex/sessions/2025/10/01/rollout-2025-10-01T12-00-00-01999f36-e900-7a00-8000-000000000001.jsonl',
    ],
    sessions: 5 + 4, // the real rollouts; the constructed ones (a rollout archived under the same id is one session)
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  gemini: {
    async layOut({ home, real }) {
      const tmp = join(home, '.gemini', 'tmp');
      for (const [name, [dir, file]] of Object.entries(GEMINI)) await put(join(real, name), join(tmp, dir, 'chats', file));
      await writeFile(join(tmp, 'proj-a', '.project_root'), '/home/someone/proj-a');
      await writeFile(join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { '/home/someone/proj-a': 'proj-a' } }));
    },
    goldens: Object.keys(GEMINI),
    sessions: 5,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  copilot: {
    // the session-state folder layout, and each flat log named by its session id (the older layout)
    async layOut({ home, real }) {
      const state = join(home, '.copilot', 'session-state');
      await cp(join(real, 'agent-sessions-session-state-dir'), state, { recursive: true });
      for (const name of await jsonlIn(real)) await put(join(real, name), join(state, `${await copilotId(join(real, name))}.jsonl`));
    },
    goldens: ['agent-sessions-large', 'agent-sessions-sanitized-small', 'agent-sessions-schema-drift', 'agent-sessions-session-state-dir__aaaabbbb-1111-2222-3333-ccccddddeeee__events'],
    sessions: 4,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  pi: {
    async layOut({ home, real }) {
      const sessions = join(home, '.pi', 'agent', 'sessions');
      await put(join(real, 'agent-sessions-v3-tree.jsonl'), join(sessions, '--tmp-as-agent-fixture-project--', '2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl'));
      await put(join(real, 'pi-mono-large-session-legacy-v1-real.jsonl'), join(sessions, '--Users-badlogic-workspaces-pi-mono--', '2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl'));
    },
    goldens: ['agent-sessions-v3-tree', 'pi-mono-large-session-legacy-v1-real'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  omp: {
    // omp keeps pi's format under its own folder: the pi v3 fixture stands for it (no omp sample exists)
    async layOut({ home }) {
      await put(join(SHARED, 'pi', 'agent-sessions-v3-tree.jsonl'), join(home, '.omp', 'agent', 'sessions', '--tmp-as-agent-fixture-project--', '2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl'));
    },
    goldens: ['../pi/agent-sessions-v3-tree'],
    sessions: 1,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  senpi: piFork(['.senpi'], '2026-06-02T09-15-00-000Z_019e2a10-7c3b-7d4e-9a01-5e6f7a8b9c0d'),
  kimchi: piFork(['.config', 'kimchi'], '2026-06-09T14-02-10-000Z_019e4b22-91a0-7f3c-8b5d-2e7c1a9f0d43'),
  gjc: piFork(['.gjc'], '2026-06-11T08-40-00-000Z_019e55d0-3f2a-7b81-a4c6-0d9e8f7a6b5c'),
  'prime-agent': {
    // the constructed root session, its fork, an RLM child and an Act lane (fixtures/prime-agent/): the two
    // subagents are not listed
    async layOut({ home, own }) {
      await cp(join(own, 'agent'), join(home, '.prime', 'agent'), { recursive: true });
    },
    goldens: ['root', 'fork', 'child', 'act-lane'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  openclaw: {
    async layOut({ home, real }) {
      const oc = join(home, '.openclaw', 'agents', 'main', 'sessions');
      await put(join(real, 'agent-sessions-large.jsonl'), join(oc, 'openclaw-stage0-large.jsonl'));
      await put(join(real, 'agent-sessions-small.jsonl'), join(oc, 'openclaw-stage0-small.jsonl'));
      await put(join(real, 'agent-sessions-schema_drift.jsonl'), join(oc, 'openclaw-stage0-drift.jsonl.reset.2026-02-24T12-00-00.000Z'));
      await writeFile(join(oc, 'sessions.json'), JSON.stringify({ 'agent:main:main': { sessionId: 'openclaw-stage0-large', label: 'Status check', channel: 'webchat', updatedAt: 1 } }));
    },
    goldens: ['agent-sessions-large', 'agent-sessions-small', 'agent-sessions-schema_drift'],
    sessions: 3,
    usage: 'none', // the real OpenClaw samples carry no assistant usage
    titles: true,
    cwd: true,
  },
  opencode: {
    // the v2 storage tree (one storage folder per data dir: the legacy sample needs a root of its own)
    async layOut({ home, real }) {
      await cp(join(real, 'agent-sessions-storage', 'storage_v2'), join(home, '.local', 'share', 'opencode', 'storage'), { recursive: true });
    },
    goldens: ['storage_v2-ses_s_stage0_large', 'storage_v2-ses_s_stage0_small'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  hermes: {
    // the real session logs (no usage in them) and the generated state.db its golden file describes
    async layOut({ home, real }) {
      for (const name of await readdir(real)) await put(join(real, name), join(home, '.hermes', 'sessions', name));
      buildHermesDb(join(home, '.hermes', 'state.db'));
    },
    goldens: ['agent-sessions-session-large', 'agent-sessions-session-schema_drift', 'agent-sessions-session-small', 'generated-state-db'],
    sessions: 3 + 3, // the logs; the database's root, continuation and branch (its task session is a subagent)
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  cursor: {
    // agent transcripts of a project, and a CLI chat store (a database, copied)
    async layOut({ home, real }) {
      const transcripts = join(home, '.cursor', 'projects', 'Users-dev-app', 'agent-transcripts');
      for (const name of await jsonlIn(real)) await put(join(real, name), join(transcripts, name));
      await put(join(real, 'agent-sessions-cli-chat-store.db'), join(home, '.cursor', 'chats', 'e4e90b7bcae743c9a1a1a045a49e1b1d', 'a1b2c3d4-e5f6-7890-abcd-ef1234567890', 'store.db'));
    },
    goldens: [],
    sessions: 5,
    usage: 'unrecorded',
    titles: true,
    cwd: false,
  },
  goose: {
    // no real sample exists: the generated database its golden file describes
    async layOut({ home }) {
      const db = join(home, '.local', 'share', 'goose', 'sessions', 'sessions.db');
      await mkdir(dirname(db), { recursive: true });
      writeGooseDb(db);
    },
    goldens: ['generated-v13'],
    sessions: 2, // the main session and one with a bad row; its subagent is not listed and the empty one holds nothing
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  qwen: {
    async layOut({ home, real }) {
      for (const name of await jsonlIn(real)) await put(join(real, name), join(home, '.qwen', 'projects', '-tmp-proj', 'chats', name));
    },
    goldens: ['agent-sessions-019f0000-0000-7000-8000-000000000001.jsonl', 'agent-sessions-active-chain-019f0000-0000-7000-8000-000000000004.jsonl', 'agent-sessions-glued-objects-019f0000-0000-7000-8000-000000000005.jsonl', 'agent-sessions-system-telemetry.jsonl', 'splitrail-qwen-code-v0.18.1.jsonl'],
    sessions: 5,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  droid: {
    // the real session logs in one project, and the repo's own session with its settings.json sidecar
    async layOut({ home, real, own }) {
      const sessions = join(home, '.factory', 'sessions');
      for (const name of await jsonlIn(real)) await put(join(real, name), join(sessions, '-tmp', name));
      await cp(join(own, 'sessions'), sessions, { recursive: true });
    },
    goldens: ['agent-sessions-session_store_large.jsonl', 'agent-sessions-session_store_schema_drift.jsonl', 'agent-sessions-session_store_small.jsonl', 'agent-sessions-stream_json_schema_drift.jsonl', 'agent-sessions-stream_json_small.jsonl', '6f1c2b9e-4c1d-4e58-9a57-0d2f3c4b5a61.jsonl'],
    sessions: 6,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  kimi: {
    async layOut({ home }) {
      await layOutKimi(join(home, '.kimi-code'));
    },
    goldens: ['agent-sessions-wire-small.jsonl', 'agent-sessions-wire-assistant-tools.jsonl', 'agent-sessions-wire-subagent-agent-0.jsonl'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  amp: {
    async layOut({ home, real }) {
      for (const name of await readdir(real)) await put(join(real, name), join(home, '.local', 'share', 'amp', 'threads', name));
    },
    goldens: ['llm-usage-metrics-e2e-thread.json', 'llm-usage-metrics-ledger-thread.json'],
    sessions: 2,
    usage: 'tokens',
    titles: false, // the usage-ledger samples hold no message text or title
    cwd: false,
  },
  'copilot-vscode': {
    // no real sample is public: the repo's sessions, built from VS Code's serialization types (codecs/copilot-vscode/README.md)
    async layOut({ home, own }) {
      await cp(join(own, 'User'), join(home, '.config', 'Code', 'User'), { recursive: true });
    },
    goldens: ['6f9619ff-8b86-4d11-b42d-00c04fc964ff', '0e4c2a18-7d3b-4f5e-9a6c-1b2d3e4f5a60', 'b7e5d3c1-a9f8-4e6d-8c2b-0a1f2e3d4c5b', '5a3c9e71-2b4d-4f60-8e1a-7c9d0b2e4f36'],
    sessions: 4,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  antigravity: {
    async layOut({ home }) {
      await layOutAntigravity(join(home, '.gemini', 'antigravity-cli'));
    },
    goldens: ['agent-sessions-cli-small.jsonl', 'agent-sessions-cli-schema-drift.jsonl'],
    sessions: 2,
    usage: 'none', // a step log without its conversation database: no tokens, usage unknown (codecs/antigravity/README.md)
    titles: true,
    cwd: false,
  },
  // The VS Code extensions: no real sample exists; the repo's own tasks, each under the editor's globalStorage.
  cline: vscodeTasks('Code', 'saoudrizwan.claude-dev', ['1722000000000', '1767225600000', '1767312000000', '1767398400000']),
  roo: vscodeTasks('Cursor', 'rooveterinaryinc.roo-cline', ['0199f2a0-7c1e-7b2a-9d3e-5a1b2c3d4e5f', '019ad6e0-1f00-7a00-8b00-0c0d0e0f1011', '019af3c0-0000-7000-8000-0000000000d1', '019c5114-2280-7c3a-9e1f-4b6d2a8c0f35', '019c5dc9-4f00-7a41-8b52-6c7d8e9f0a1b', '019c5dc9-5ea0-7c63-9d74-0e1f2a3b4c5d']),
  kilo: vscodeTasks('VSCodium', 'kilocode.kilo-code', ['019af0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b', '019af6a7-0000-7000-8000-000000000001', '019af9d0-0000-7000-8000-0000000000fa']),
  grok: {
    // no real sample exists: the repo's sessions, shaped from Grok Build's source (codecs/grok/README.md)
    async layOut({ home, own }) {
      await cp(join(own, 'sessions'), join(home, '.grok', 'sessions'), { recursive: true });
    },
    goldens: ['0f9c2e4a-1b7d-4c3e-9a51-6d2b8e7f1a01', '5b3e8d21-77aa-4f0e-8c19-2e4f6a9b0c02', 'c7d1a9e0-3f52-4b8c-a6e4-91b2d3c4e503'],
    sessions: 3,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  'grok-cli': {
    // the community grok-cli's database, built from its own DDL and the repo's rows
    async layOut({ home, own }) {
      await mkdir(join(home, '.grok'), { recursive: true });
      const db = new Database(join(home, '.grok', 'grok.db'));
      db.pragma('journal_mode = WAL');
      db.exec(await readFile(join(own, 'grok.sql'), 'utf8'));
      db.close();
    },
    goldens: ['grok'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  codebuff: {
    async layOut({ home, own }) {
      await cp(join(own, 'projects'), join(home, '.config', 'manicode', 'projects'), { recursive: true });
    },
    goldens: ['2026-01-04T09-15-00.000Z', '2026-01-05T18-40-12.345Z', '2026-01-06T07-00-00.000Z'],
    sessions: 3,
    usage: 'tokens',
    titles: true,
    cwd: false, // Codebuff keeps only the project folder's name
  },
  zcode: {
    async layOut({ home }) {
      await mkdir(join(home, '.zcode', 'cli', 'db'), { recursive: true });
      buildZcodeDb(join(home, '.zcode', 'cli', 'db', 'db.sqlite'));
    },
    goldens: ['db'],
    sessions: 3, // two with requests, and a `session` row without any
    usage: 'tokens',
    titles: false, // Z Code's usage table holds no conversation
    cwd: true,
  },
  mimo: {
    // no real sample exists: a database built from MiMo Code's DDL, one session of it imported from Claude Code
    async layOut({ home }) {
      await mkdir(join(home, '.local', 'share', 'mimocode'), { recursive: true });
      buildMimoDb(join(home, '.local', 'share', 'mimocode', 'mimocode.db'));
    },
    goldens: [],
    unGolden: ['.local/share/mimocode/mimocode.db'],
    sessions: 3,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  crush: {
    // a project's database built from Crush's DDL, registered in ~/.local/share/crush/projects.json
    async layOut({ home }) {
      layOutCrush(home);
    },
    goldens: ['crush'],
    sessions: 4, // the sub-agent's task session is not listed
    usage: 'tokens', // the recorded cost, with no token counts
    titles: true,
    cwd: true,
  },
  vibe: {
    async layOut({ home, own }) {
      await cp(join(own, 'logs'), join(home, '.vibe', 'logs'), { recursive: true });
    },
    goldens: ['session_20260105_090000_019e1e27', 'session_20260106_141500_7a3b9c2d', 'session_20260107_080000_5c5c5c5c'],
    sessions: 3,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  kiro: {
    // kiro-cli's session files at ~/.kiro/sessions/cli, and its database built from the CLI's DDL
    async layOut({ home }) {
      layOutKiro(home);
    },
    goldens: ['sessions', 'data.sqlite3'],
    sessions: 4,
    usage: 'unrecorded',
    titles: true,
    cwd: true,
  },
  codebuddy: {
    async layOut({ home, own }) {
      await cp(join(own, 'projects'), join(home, '.codebuddy', 'projects'), { recursive: true });
    },
    goldens: ['5b0d1f5c-2f7e-4c8a-9d55-3c1e0a7b9e21.jsonl', '9c3e7a10-6b2d-4f0e-8a1c-2d4f6b8e0a13.jsonl'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  workbuddy: {
    async layOut({ home, own }) {
      await cp(join(own, 'projects'), join(home, '.workbuddy', 'projects'), { recursive: true });
    },
    goldens: ['7d1e4b2a-3c5f-4a6e-9b8d-0f1a2c3e4d5b.jsonl', 'agent-3f9a21c0.jsonl'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  junie: {
    async layOut({ home, own }) {
      await cp(join(own, 'sessions'), join(home, '.junie', 'sessions'), { recursive: true });
    },
    goldens: ['session-260824-172944-kgus', 'session-260824-174155-sm5c', 'session-260825-151015-1bxv'],
    sessions: 3,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  auggie: {
    async layOut({ home, own }) {
      await cp(join(own, 'sessions'), join(home, '.augment', 'sessions'), { recursive: true });
    },
    goldens: ['2f0c6b1e-8d4a-4c2e-9b7a-3c5d1e0f9a21', '5e7a9c1b-3d2f-4e8a-b6c4-0f1e2d3c4b5a', '9d3e5a70-1b2c-4d8e-8f90-a1b2c3d4e5f6'],
    sessions: 3,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  zed: {
    // ~/.local/share/zed/threads/threads.db built from Zed's DDL, zstd-compressed thread blobs
    async layOut({ home }) {
      layOutZed(home);
    },
    goldens: ['zed'],
    sessions: 4, // the subagent's thread is not listed; the row that does not decode gives no session
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  commandcode: {
    // no real sample is checked in: the repo's transcripts, shaped on captured ones (codecs/commandcode/README.md)
    async layOut({ home, own }) {
      await cp(join(own, 'projects'), join(home, '.commandcode', 'projects'), { recursive: true });
    },
    goldens: ['5d7c1e2a-8b34-4f61-9c0d-2a6e4b8f1c03', '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  mux: {
    // no real sample exists: ledgers and a chat shaped on Mux's types (codecs/mux/README.md)
    async layOut({ home, own }) {
      await cp(join(own, 'sessions'), join(home, '.mux', 'sessions'), { recursive: true });
    },
    goldens: ['a1b2c3d4e5', 'f6e7d8c9b0'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: false,
  },
  openhands: {
    // no real sample exists: conversations written from the OpenHands SDK's types (fixtures/openhands/README.md)
    async layOut({ home, own }) {
      await cp(join(own, 'conversations'), join(home, '.openhands', 'conversations'), { recursive: true });
    },
    goldens: ['3f9a1c2b7d4e4f60a1b2c3d4e5f60718', '8b2e4d6f1a3c4e5f9071a2b3c4d5e6f7', 'c41d2e3f4a5b4c6d8e9f0a1b2c3d4e5f', 'd5e6f7a8b9c04d1e8f2a3b4c5d6e7f80'],
    sessions: 4,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  jcode: {
    // no real sample is public: snapshots and a journal written from Jcode's types (fixtures/jcode/README.md)
    async layOut({ home, own }) {
      await cp(join(own, 'sessions'), join(home, '.jcode', 'sessions'), { recursive: true });
    },
    goldens: ['session_elm_1772611200', 'session_fox_1772441999', 'session_oak_1772546400'],
    sessions: 3,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  dsh: {
    // no real sample is public: logs written from dsh's types (codecs/dsh/README.md), in ~/.dsh and in Cherry
    // Studio's dsh folder; the plain logs of fixtures/dsh/sdk-sessions need $DSH_SESSION_ROOT, not set here
    async layOut({ home, own }) {
      await cp(join(own, 'home', '.dsh'), join(home, '.dsh'), { recursive: true });
      const cherry = join('.config', 'CherryStudio', 'Data', 'Agents', '.dsh');
      await cp(join(own, 'home', cherry), join(home, cherry), { recursive: true });
    },
    goldens: ['session-6f1d2c3a-8b4e-4f5a-9c7d-1e2f3a4b5c6d', 'session-0a9b8c7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d', 'session-3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f', 'cherry-agent-session-7d2e'],
    sessions: 4,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  fx: {
    // no real sample is public: logs written in the byte order of fx's own encoder (fixtures/fx/README.md),
    // with the v2 store's folder and a staging folder beside them (neither a session); the subagent child is
    // not listed
    async layOut({ home, own }) {
      await cp(join(own, 'sessions'), join(home, '.fx', 'sessions'), { recursive: true });
    },
    goldens: ['Ch1-child001', 'Cv5_convo0001', 'Cv6_later0001', 'Mx4_mixed001', 'Nw2_later001', 'Pa7_parent01', 'Qz1-R7wVb0Hn', 'Yk3_p2QxLm8a'],
    sessions: 7,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  reasonix: {
    // no real sample is public: daily stats files written from Reasonix's record type (fixtures/reasonix/README.md)
    async layOut({ home, own }) {
      await cp(join(own, 'home', '.reasonix'), join(home, '.reasonix'), { recursive: true });
    },
    goldens: ['2026-08-02', '2026-08-03'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: false,
  },  opencodereview: {
    // no real sample is public: review sessions written from OCR's session writer (fixtures/opencodereview/README.md)
    async layOut({ home, own }) {
      await cp(join(own, 'sessions'), join(home, '.opencodereview', 'sessions'), { recursive: true });
    },
    goldens: ['3f2c9a1e-7b4d-4e8a-9c51-0d6e2f8a4b17', '8d1e5f3a-2c6b-4a9e-b7d0-4f1a9c3e6b25'],
    sessions: 2,
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
  devin: {
    // no real sample is public: a database built with the tables a published CLI creates (fixtures/devin/README.md)
    async layOut({ home }) {
      await mkdir(join(home, '.local', 'share', 'devin', 'cli'), { recursive: true });
      buildDevinDb(join(home, '.local', 'share', 'devin', 'cli', 'sessions.db'));
    },
    goldens: ['sessions'],
    sessions: 3, // a session, a fork of it, and one whose only reply has no metrics yet
    usage: 'tokens',
    titles: true,
    cwd: true,
  },
};

/** The ids that have no entry, and why: sessionfold's own formats, not an agent's history. */
export const NOT_AGENTS: readonly string[] = ['sessionfold-jsonl', 'store'];

export interface EveryAgentTree {
  /** The temp dir: HOME and the cache under it. */
  dir: string;
  home: string;
  /** The environment the CLI runs with: HOME, the XDG folders, nothing of the real user's. */
  env: NodeJS.ProcessEnv;
  remove(): Promise<void>;
}

/** Build the tree of every entry of `AGENT_TREE` in a fresh temp dir. */
export async function buildEveryAgentTree(): Promise<EveryAgentTree> {
  const dir = await mkdtemp(join(tmpdir(), 'sf-every-agent-'));
  const home = join(dir, 'home');
  await mkdir(home);
  for (const [agent, entry] of Object.entries(AGENT_TREE)) {
    await entry.layOut({ home, real: join(SHARED, agent === 'omp' ? 'pi' : agent), own: join(OWN, agent) });
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    // the event cache and sessionfold's own data live outside the agents' folders
    XDG_CACHE_HOME: join(dir, 'cache'),
    SESSIONFOLD_EXPORT_DIR: join(dir, 'exports'),
    SESSIONFOLD_STORE_DIR: join(dir, 'store'),
    SESSIONFOLD_SOCKET: 'off',
    NO_COLOR: '1',
    TZ: 'UTC',
    COLUMNS: '200',
  };
  return { dir, home, env, remove: () => rm(dir, { recursive: true, force: true }) };
}
