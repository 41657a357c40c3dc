/**
 * Every built-in codec object, for the package's entry (src/index.ts). Importing this module loads every codec's
 * parsers: the CLI never does (its registry loads a codec when its files are read, src/lazy-codec.ts).
 */
export { sessionfoldJsonl } from '../codecs/sessionfold-jsonl/index.js';
export { claude } from '../codecs/claude/index.js';
/** Cherry Studio's agent sessions under `<userData>/CherryStudio`: Claude Code's and pi's files, read by their engines. */
export { cherryStudio } from '../codecs/cherry-studio/index.js';
/** Claude Desktop's Cowork transcripts (Claude Code's, one config folder per task), read by Claude's engine. */
export { cowork } from '../codecs/cowork/index.js';
export { codex } from '../codecs/codex/index.js';
export { gemini } from '../codecs/gemini/index.js';
export { copilot } from '../codecs/copilot/index.js';
/** GitHub Copilot Chat in VS Code (`<user dir>/workspaceStorage/<id>/chatSessions/*.jsonl|.json`), incremental. */
export { copilotVscode } from '../codecs/copilot-vscode/index.js';
export { pi } from '../codecs/pi/index.js';
export { omp } from '../codecs/omp/index.js';
/** Senpi sessions (`~/.senpi/agent/sessions`), pi's format read by pi's engine. */
export { senpi } from '../codecs/senpi/index.js';
/** Kimchi sessions (`~/.config/kimchi/harness/sessions`), pi's format read by pi's engine. */
export { kimchi } from '../codecs/kimchi/index.js';
/** Prime Agent sessions (`~/.prime/agent/sessions`, RLM children in `session-artifacts`), pi's format read by pi's engine. */
export { primeAgent } from '../codecs/prime-agent/index.js';
/** gajae-code sessions (`~/.gjc/agent/sessions`), omp's format read by pi's engine. */
export { gjc } from '../codecs/gjc/index.js';
export { openclaw } from '../codecs/openclaw/index.js';
export { opencode } from '../codecs/opencode/index.js';
export { hermes } from '../codecs/hermes/index.js';
export { cursor } from '../codecs/cursor/index.js';
export { goose } from '../codecs/goose/index.js';
/** Qwen Code chats (`~/.qwen/projects/<project>/chats/<id>.jsonl`), incremental, glued records split. */
export { qwen } from '../codecs/qwen/index.js';
/** Factory Droid sessions (`~/.factory/sessions`), with the `settings.json` sidecar's token totals. */
export { droid } from '../codecs/droid/index.js';
export { kimi } from '../codecs/kimi/index.js';
export { amp } from '../codecs/amp/index.js';
export { antigravity } from '../codecs/antigravity/index.js';
/** Cline tasks (VS Code globalStorage `saoudrizwan.claude-dev/tasks/<id>/ui_messages.json`), fingerprint reads. */
export { cline } from '../codecs/cline/index.js';
/** Roo Code tasks (globalStorage `rooveterinaryinc.roo-cline/tasks`), Cline's format, cache-inclusive `tokensIn`. */
export { roo } from '../codecs/roo/index.js';
/** Kilo Code: the extension's tasks (globalStorage `kilocode.kilo-code/tasks`, Cline's format) and Kilo CLI's `kilo.db`. */
export { kilo } from '../codecs/kilo/index.js';
/** Grok Build (xAI's `grok` CLI) sessions (`~/.grok/sessions/<workspace>/<id>/updates.jsonl`), incremental. */
export { grok } from '../codecs/grok/index.js';
/** The community grok-cli's database (`~/.grok/grok.db`): sessions, messages, tool calls and usage rows. */
export { grokCli } from '../codecs/grok-cli/index.js';
/** Codebuff chats (`~/.config/manicode/projects/<project>/chats/<id>/chat-messages.json`), fingerprint cursor. */
export { codebuff } from '../codecs/codebuff/index.js';
/** Z Code's usage database (`~/.zcode/cli/db/db.sqlite`): one usage event per model request, no messages. */
export { zcode } from '../codecs/zcode/index.js';
/** Crush's per-project `crush.db` databases, found through its `projects.json`: conversations, and each session's recorded cost. */
export { crush } from '../codecs/crush/index.js';
/** Mistral Vibe's session folders (a `meta.json` and a `messages.jsonl` per folder under `~/.vibe/logs/session`): one usage event per session from its stats. */
export { vibe } from '../codecs/vibe/index.js';
/** Kiro CLI's sessions (`~/.kiro/sessions/cli/<id>.json` + `.jsonl`) and its `data.sqlite3` conversations; records no tokens. */
export { kiro } from '../codecs/kiro/index.js';
/** CodeBuddy Code transcripts (`~/.codebuddy/projects/<cwd slug>/<id>.jsonl`, its own format), incremental. */
export { codebuddy } from '../codecs/codebuddy/index.js';
/** WorkBuddy transcripts (`~/.workbuddy/projects/<cwd slug>/<id>.jsonl`), CodeBuddy's format read by CodeBuddy's engine. */
export { workbuddy } from '../codecs/workbuddy/index.js';
/** JetBrains Junie's session logs (`~/.junie/sessions/<id>/events.jsonl`): one usage event per LLM call. */
export { junie } from '../codecs/junie/index.js';
/** Auggie's session documents (`~/.augment/sessions/<id>.json`, Augment Code's CLI): one usage event per turn. */
export { auggie } from '../codecs/auggie/index.js';
/** MiMo Code's `mimocode.db` (OpenCode's tables, read by OpenCode's engine); messages it imported from Claude Code and Codex left out. */
export { mimo } from '../codecs/mimo/index.js';
/** Zed's Agent panel threads (`threads/threads.db` of Zed's data folder, zstd-compressed JSON per thread): conversations, and per-thread token totals. */
export { zed } from '../codecs/zed/index.js';
/** Command Code transcripts (`~/.commandcode/projects/<cwd slug>/<id>.jsonl`), incremental; usage per request where recorded. */
export { commandCode } from '../codecs/commandcode/index.js';
/** Mux's (Xum's) per-workspace usage ledgers (`~/.xum/sessions/<workspace>/session-usage.json`, and the Mux homes'): one cumulative usage event per model. */
export { mux } from '../codecs/mux/index.js';
/** OpenHands CLI conversations (`~/.openhands/conversations/<id>/base_state.json` with `events/`): one usage event per LLM call the state records. */
export { openHands } from '../codecs/openhands/index.js';
/** DeepSeek Harness session logs (`~/.dsh/sessions/<project>/<session>/session[.vN].jsonl[.zstd]`), incremental, zstd frames resumed at frame boundaries. */
export { dsh } from '../codecs/dsh/index.js';
/** Jcode sessions (`~/.jcode/sessions/<id>.json` with its `.journal.jsonl`): one usage event per assistant message. */
export { jcode } from '../codecs/jcode/index.js';
/** Vercel Labs' fx session logs (`~/.fx/sessions/<id>/events.jsonl`): usage per model per cumulative checkpoint, as growth. */
export { fx } from '../codecs/fx/index.js';
/** Reasonix's daily usage statistics (`~/.reasonix/stats/YYYY-MM-DD.jsonl`), incremental: one usage event per provider usage report, a day per session. */
export { reasonix } from '../codecs/reasonix/index.js';
/** Devin CLI's `sessions.db` (`~/.local/share/devin/cli`): sessions, conversation, and one usage event per model request. */
export { devin } from '../codecs/devin/index.js';
/** Open Code Review's review sessions (`~/.opencodereview/sessions/<repo key>/<id>.jsonl`), incremental: one usage event per LLM response. */
export { openCodeReview } from '../codecs/opencodereview/index.js';
export { sessionfoldStore } from '../codecs/sessionfold-jsonl/store.js';
