/**
 * The records of the Python kimi-cli's session folder (`~/.kimi/sessions/<md5 of cwd>/<session>/`), as its own
 * types write them: pydantic `model_dump(mode="json")`, then `json.dumps(..., ensure_ascii=False)`, one per
 * line. Only the fields this codec reads are typed; sources in README.md ("The kimi-cli wire").
 *
 * Kimi Code's own wire (`usage.record`, `context.append_message`, ...) is read in parse.ts from its records'
 * `type`; it has no type file of its own here.
 */

/** `wire/file.py` `WireFileMetadata`: the first line of a wire file (absent from files of protocol 1). */
export interface CliWireMetadata {
  type: 'metadata';
  protocol_version: string;
}

/** `wire/file.py` `WireMessageRecord`: every other line. `timestamp` is `time.time()`, seconds. */
export interface CliWireRecord {
  timestamp: number;
  message: CliEnvelope;
}

/** `wire/types.py` `WireMessageEnvelope`: the message's class name and its fields. */
export interface CliEnvelope {
  type: string;
  payload: Record<string, unknown>;
}

/**
 * kosong's `TokenUsage` (`kimi_types/core.py`): one model call's tokens, apart. `input_other` is the input
 * neither read from nor written to the cache, `output` all output (thinking included).
 */
export interface CliTokenUsage {
  input_other: number;
  output: number;
  input_cache_read?: number;
  input_cache_creation?: number;
}

/**
 * `StatusUpdate`: sent once per step, after the step's model call returned (`KimiSoul._step`): `token_usage` is
 * that call's, `message_id` the provider's id of the response. Updates of other fields alone (`context_usage`,
 * `plan_mode`, `mcp_status`) carry `token_usage: null`.
 */
export interface CliStatusUpdate {
  context_usage?: number | null;
  context_tokens?: number | null;
  max_context_tokens?: number | null;
  token_usage?: CliTokenUsage | null;
  message_id?: string | null;
  plan_mode?: boolean | null;
}

/**
 * `SubagentEvent`: a subagent's message forwarded to its parent's wire. Those with `agent_id` come from a
 * subagent that also writes its own wire (`<session>/subagents/<agent_id>/wire.jsonl`); the older ones name
 * only the Task tool call (`task_tool_call_id`) and are the subagent's only record.
 */
export interface CliSubagentEvent {
  parent_tool_call_id?: string | null;
  task_tool_call_id?: string;
  agent_id?: string | null;
  subagent_type?: string | null;
  event: CliEnvelope;
}

/** `TurnBegin` / `SteerInput`: the user's input, a string or content parts. */
export interface CliTurnBegin {
  user_input: string | CliContentPart[];
}

/** `ContentPart`: merged by the wire before it is written, so one record is one run of text or thinking. */
export type CliContentPart = { type: 'text'; text: string } | { type: 'think'; think: string; encrypted?: string | null } | { type: string };

/** `ToolCall`: `arguments` is the JSON text the model wrote. */
export interface CliToolCall {
  type: 'function';
  id: string;
  function: { name: string; arguments: string | null };
}

/** `ToolResult` (`return_value`; kosong before 0.27 named it `result`). */
export interface CliToolResult {
  tool_call_id: string;
  return_value?: { is_error?: boolean; output?: unknown };
  result?: { is_error?: boolean; output?: unknown };
}

/** `session_state.py` `SessionState`, the field read: the session's title. */
export interface CliSessionState {
  custom_title?: string | null;
}

/** `subagents/store.py`: `<session>/subagents/<agent_id>/meta.json`, the fields read. */
export interface CliSubagentMeta {
  subagent_type?: string;
  /** `time.time()` when the instance was created, seconds. */
  created_at?: number;
  /** `subagents/models.py` `AgentLaunchSpec`: `work_dir`, the subagent's own work dir when it was given one. */
  launch_spec?: { work_dir?: string | null };
}

/**
 * `config.py` `Config`, the fields read, from `<share>/config.toml` (TOML, as tomlkit writes it): the model
 * kimi-cli runs with unless told otherwise is `models[default_model].model`, the name the provider's API takes
 * (`default_model` is the key of a `models` entry, such as `kimi-code/kimi-for-coding`).
 */
export interface CliConfig {
  default_model?: string;
  models?: Record<string, { provider?: string; model?: string }>;
}

/** `metadata.py` `Metadata`, from `<share>/kimi.json`: the work dirs kimi-cli has run in. */
export interface CliMetadata {
  work_dirs?: {
    /** The work dir; its sessions folder is named after the MD5 of its UTF-8 bytes. */
    path: string;
    /** The KAOS it is on (`local` by default); another one prefixes the folder's name, `<kaos>_<md5>`. */
    kaos?: string;
    last_session_id?: string | null;
  }[];
}
