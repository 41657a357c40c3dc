#!/usr/bin/env node
import { createRequire } from "node:module";
import { closeSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { basename, dirname, join, resolve, sep } from "node:path";
import { availableParallelism, cpus, homedir, tmpdir } from "node:os";
import { mkdir, open, readFile, readdir, rename, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import xxhash from "xxhash-wasm";
import Database from "better-sqlite3";
import { Worker } from "node:worker_threads";
import { parseArgs } from "node:util";
import split2 from "split2";
import { spawn } from "node:child_process";
// \0rolldown/runtime.js
var __defProp = Object.defineProperty;
var __esmMin = (fn, res, err) => () => {
	if (err) throw err[0];
	try {
		return fn && (res = fn(fn = 0)), res;
	} catch (e) {
		throw err = [e], e;
	}
};
var __exportAll = (all, no_symbols) => {
	let target = {};
	for (var name in all) __defProp(target, name, {
		get: all[name],
		enumerable: true
	});
	if (!no_symbols) __defProp(target, Symbol.toStringTag, { value: "Module" });
	return target;
};
// dist/src/errors.js
function isSessionfoldError(e, code) {
	return e instanceof SessionfoldError && (code === void 0 || e.code === code);
}
/** `Invalid option X: expected Y, got <json>` */
function invalidOption(name, expected, got) {
	let shown;
	try {
		shown = JSON.stringify(got) ?? String(got);
	} catch {
		shown = String(got);
	}
	return new SessionfoldError("INVALID_OPTION", `Invalid option ${name}: expected ${expected}, got ${shown}`);
}
var SessionfoldError;
var init_errors = __esmMin((() => {
	SessionfoldError = class extends Error {
		name = "SessionfoldError";
		code;
		agent;
		file;
		byteOffset;
		line;
		raw;
		constructor(code, message, details = {}) {
			super(message, details.cause === void 0 ? void 0 : { cause: details.cause });
			this.code = code;
			this.agent = details.agent;
			this.file = details.file;
			this.byteOffset = details.byteOffset;
			this.line = details.line;
			this.raw = details.raw === void 0 ? void 0 : details.raw.slice(0, 200);
		}
		toJSON() {
			return {
				name: this.name,
				code: this.code,
				message: this.message,
				agent: this.agent,
				file: this.file,
				byteOffset: this.byteOffset,
				line: this.line
			};
		}
	};
}));
// dist/src/events.js
function isEventKind(value) {
	return EVENT_KINDS.includes(value);
}
var EVENT_KINDS;
var init_events$1 = __esmMin((() => {
	EVENT_KINDS = [
		"session",
		"message",
		"usage",
		"tool_call",
		"tool_result"
	];
}));
// dist/src/codec.js
function newReadInfo() {
	return {
		bytes: 0,
		bytesCommitted: 0,
		lines: 0,
		events: 0,
		skippedLines: 0,
		filteredLines: 0
	};
}
/** Fill every default once; throw INVALID_OPTION for bad values. */
function normalizeReadOptions(user = {}) {
	let kinds;
	if (user.kinds === void 0) kinds = [...EVENT_KINDS];
	else {
		if (!Array.isArray(user.kinds)) throw invalidOption("kinds", `an array of ${EVENT_KINDS.join("|")}`, user.kinds);
		for (const k of user.kinds) if (!isEventKind(k)) throw invalidOption("kinds", EVENT_KINDS.join("|"), k);
		kinds = [...user.kinds];
	}
	const bufferSize = user.bufferSize ?? 1048576;
	if (!Number.isInteger(bufferSize) || bufferSize < 1) throw invalidOption("bufferSize", "a positive integer", user.bufferSize);
	const maxLineBytes = user.maxLineBytes ?? 268435456;
	if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1) throw invalidOption("maxLineBytes", "a positive integer", user.maxLineBytes);
	return {
		kinds: new Set(kinds),
		allKinds: kinds.length === EVENT_KINDS.length,
		resume: user.resume,
		maxLineBytes,
		bufferSize,
		strict: user.strict ?? false,
		onSkip: user.onSkip,
		info: user.info ?? newReadInfo(),
		raw: user.raw ?? false
	};
}
/** `n<CORE_EVENT_VERSION>.p<parserVersion>`, e.g. `n1.p1`. Events stored under one string are stale under any other. */
function getParserVersion(codec) {
	return `n1.p${codec.parserVersion}`;
}
/** `<codec>@<getParserVersion(codec)>`, the `parser` field of a cursor. */
function getParserString(codec) {
	return `${codec.id}@${getParserVersion(codec)}`;
}
var init_codec = __esmMin((() => {
	init_events$1();
	init_errors();
}));
// dist/cursors/line-splitter.js
/** Does `hay[from, to)` contain any of `markers`? */
function hasMarker(hay, from, to, markers) {
	for (const m of markers) {
		const at = hay.indexOf(m, from);
		if (at !== -1 && at + m.length <= to) return true;
	}
	return false;
}
var MarkerHits, LineSplitter;
var init_line_splitter = __esmMin((() => {
	init_errors();
	MarkerHits = class {
		#hay;
		#to;
		#markers;
		/** Per marker: its next start at or after the last position asked (-1: none before the chunk's end). */
		#at = [];
		constructor(hay, to) {
			this.#hay = hay;
			this.#to = to;
		}
		/** Start of the first occurrence of any of `markers` wholly inside `[from, to)`, or -1. */
		next(markers, from) {
			if (markers !== this.#markers) {
				this.#markers = markers;
				this.#at = markers.map(() => -2);
			}
			let best = -1;
			for (let k = 0; k < markers.length; k++) {
				let at = this.#at[k];
				if (at === -2 || at !== -1 && at < from) {
					const m = markers[k];
					at = this.#hay.indexOf(m, from);
					if (at !== -1 && at + m.length > this.#to) at = -1;
					this.#at[k] = at;
				}
				if (at !== -1 && (best === -1 || at < best)) best = at;
			}
			return best;
		}
	};
	LineSplitter = class {
		#carry = Buffer.allocUnsafe(0);
		#carryLen = 0;
		/** File offset of the first byte of the current (unterminated) line. */
		#lineStart;
		/** File offset of the next byte to be pushed. */
		#pos;
		#skipping = false;
		#skipHash;
		#hash;
		#lines = 0;
		#max;
		#onLine;
		#onLongLine;
		#filter;
		/** A line spanning chunks without a copy: 0 none, 1 no marker seen yet, 2 wanted (read back at its LF). */
		#span = 0;
		#spanMarkers = [];
		/** The last bytes of the spanning line (a marker may straddle two chunks). */
		#spanTail = Buffer.alloc(0);
		constructor(options) {
			this.#lineStart = options.startOffset;
			this.#pos = options.startOffset;
			this.#max = options.maxLineBytes;
			this.#onLine = options.onLine;
			this.#onLongLine = options.onLongLine;
			this.#hash = options.hash;
			this.#filter = options.hash === void 0 ? options.filter : void 0;
		}
		/** Offset just past the last LF seen. */
		get committed() {
			return this.#lineStart;
		}
		/** Bytes after the last LF (an unterminated final line). */
		get pendingBytes() {
			return this.#pos - this.#lineStart;
		}
		/** LF-terminated lines seen, over-long ones included. */
		get lines() {
			return this.#lines;
		}
		/** The hash of bytes [0, committed) when a hash was given. */
		get hash() {
			return this.#hash;
		}
		/** Feed `chunk[0..length)`. The caller may reuse `chunk` as soon as this returns. */
		push(chunk, length = chunk.length) {
			const base = this.#pos;
			let i = 0;
			/** Start, in this chunk, of committed bytes not yet hashed. */
			let hashFrom = 0;
			if (this.#span !== 0) {
				const lf = chunk.indexOf(10, 0);
				const end = lf !== -1 && lf < length ? lf : length;
				const total = base + end - this.#lineStart;
				if (total > this.#max) {
					this.#span = 0;
					if (end === length) {
						this.#skipping = true;
						this.#pos = base + length;
						return;
					}
					this.#lines++;
					this.#onLongLine(this.#lineStart, base + lf + 1, total);
					this.#lineStart = base + lf + 1;
					i = lf + 1;
				} else {
					if (this.#span === 1 && this.#spanSees(chunk, end)) this.#span = 2;
					if (end === length) {
						if (this.#span === 1) this.#keepTail(chunk, 0, length);
						this.#pos = base + length;
						return;
					}
					const next = base + lf + 1;
					this.#lines++;
					if (this.#span === 2) this.#readBack(this.#lineStart, total, next);
					else this.#filter.onFiltered(this.#lineStart, next);
					this.#span = 0;
					this.#lineStart = next;
					i = lf + 1;
				}
			} else if (this.#skipping || this.#carryLen > 0) {
				const lf = chunk.indexOf(10, 0);
				if (lf !== -1 && lf < length) {
					const next = base + lf + 1;
					this.#lines++;
					if (this.#skipping) {
						const h = this.#skipHash;
						if (h !== void 0) {
							h.update(chunk.subarray(0, lf + 1));
							this.#hash = h;
							this.#skipHash = void 0;
							hashFrom = lf + 1;
						}
						this.#skipping = false;
						this.#onLongLine(this.#lineStart, next, next - this.#lineStart - 1);
					} else {
						const total = this.#carryLen + lf;
						this.#hash?.update(this.#carry.subarray(0, this.#carryLen));
						if (total > this.#max) this.#onLongLine(this.#lineStart, next, total);
						else {
							this.#appendCarry(chunk, 0, lf);
							let end = this.#carryLen;
							if (end > 0 && this.#carry[end - 1] === 13) end--;
							this.#onLine(this.#carry.subarray(0, end), this.#lineStart, next);
						}
						this.#carryLen = 0;
					}
					this.#lineStart = next;
					i = lf + 1;
				} else {
					i = length;
					if (this.#skipping) this.#skipHash?.update(chunk.subarray(0, length));
					else if (this.#carryLen + length > this.#max) {
						this.#skipping = true;
						if (this.#hash !== void 0) {
							this.#skipHash = this.#hash.copy();
							this.#skipHash.update(this.#carry.subarray(0, this.#carryLen));
							this.#skipHash.update(chunk.subarray(0, length));
						}
						this.#carryLen = 0;
					} else this.#appendCarry(chunk, 0, length);
					this.#pos = base + length;
					return;
				}
			}
			const onLine = this.#onLine;
			const max = this.#max;
			let lineStart = this.#lineStart;
			let lines = 0;
			const filter = this.#filter;
			const hits = filter === void 0 ? void 0 : new MarkerHits(chunk, length);
			let markers = filter?.markers();
			let hit = markers === void 0 ? -1 : hits.next(markers, i);
			for (;;) {
				const lf = chunk.indexOf(10, i);
				if (lf === -1 || lf >= length) break;
				const next = base + lf + 1;
				lines++;
				const len = lf - i;
				if (len > max) this.#onLongLine(lineStart, next, len);
				else if (markers !== void 0 && (hit === -1 || hit > lf)) filter.onFiltered(lineStart, next);
				else {
					let end = lf;
					if (end > i && chunk[end - 1] === 13) end--;
					onLine(chunk.subarray(i, end), lineStart, next);
					if (filter !== void 0) {
						markers = filter.markers();
						hit = markers === void 0 ? -1 : hits.next(markers, lf + 1);
					}
				}
				lineStart = next;
				i = lf + 1;
			}
			this.#lines += lines;
			this.#lineStart = lineStart;
			if (i > hashFrom) this.#hash?.update(chunk.subarray(hashFrom, i));
			if (i < length) {
				if (this.#skipping) this.#skipHash?.update(chunk.subarray(i, length));
				else if (this.#carryLen + (length - i) > this.#max) {
					this.#skipping = true;
					if (this.#hash !== void 0) {
						this.#skipHash = this.#hash.copy();
						this.#skipHash.update(this.#carry.subarray(0, this.#carryLen));
						this.#skipHash.update(chunk.subarray(i, length));
					}
					this.#carryLen = 0;
				} else if (this.#filter !== void 0) {
					const markers = this.#filter.markers();
					this.#spanMarkers = markers ?? [];
					this.#span = markers === void 0 || hasMarker(chunk, i, length, markers) ? 2 : 1;
					this.#spanTail = Buffer.alloc(0);
					if (this.#span === 1) this.#keepTail(chunk, i, length);
				} else this.#appendCarry(chunk, i, length);
			}
			this.#pos = base + length;
		}
		/** Whether the spanning line's bytes in `chunk[0, end)` (with the kept tail before them) hold a marker. */
		#spanSees(chunk, end) {
			const markers = this.#spanMarkers;
			if (markers.length === 0) return false;
			const tail = this.#spanTail;
			if (tail.length > 0) {
				const joint = Buffer.concat([tail, chunk.subarray(0, Math.min(end, this.#spanKeep()))]);
				if (hasMarker(joint, 0, joint.length, markers)) return true;
			}
			return hasMarker(chunk, 0, end, markers);
		}
		/** Keep the last bytes of `chunk[from, to)` (one less than the longest marker) for `#spanSees`. */
		#spanKeep() {
			let keep = 0;
			for (const m of this.#spanMarkers) keep = Math.max(keep, m.length - 1);
			return keep;
		}
		#keepTail(chunk, from, to) {
			const keep = this.#spanKeep();
			if (keep === 0) return;
			const part = chunk.subarray(Math.max(from, to - keep), to);
			const joined = this.#spanTail.length === 0 ? Buffer.from(part) : Buffer.concat([this.#spanTail, part]);
			this.#spanTail = joined.length > keep ? joined.subarray(joined.length - keep) : joined;
		}
		/** Read a wanted spanning line back from the file and hand it over. */
		#readBack(start, length, next) {
			const line = Buffer.allocUnsafe(length);
			let got = 0;
			while (got < length) {
				const n = this.#filter.readAt(line.subarray(got), start + got);
				if (n <= 0) throw new SessionfoldError("IO_ERROR", `The file shrank while the line at byte ${start} was being read`, { byteOffset: start });
				got += n;
			}
			const end = length > 0 && line[length - 1] === 13 ? length - 1 : length;
			this.#onLine(line.subarray(0, end), start, next);
		}
		#appendCarry(chunk, from, to) {
			const need = this.#carryLen + (to - from);
			if (need > this.#carry.length) {
				const grown = Buffer.allocUnsafe(Math.max(need, this.#carry.length * 2, 4096));
				this.#carry.copy(grown, 0, 0, this.#carryLen);
				this.#carry = grown;
			}
			chunk.copy(this.#carry, this.#carryLen, from, to);
			this.#carryLen = need;
		}
	};
}));
// dist/cursors/core.js
/** Parse a line as a JSON object, or throw MALFORMED_LINE. */
function parseJsonObject(line, start, agent, file) {
	let value;
	try {
		value = JSON.parse(line.toString("utf8"));
	} catch (cause) {
		throw new SessionfoldError("MALFORMED_LINE", `Malformed JSON line at byte ${start} of ${file}`, {
			agent,
			file,
			byteOffset: start,
			raw: line.subarray(0, 200).toString("utf8"),
			cause
		});
	}
	if (value === null || typeof value !== "object" || Array.isArray(value)) throw new SessionfoldError("MALFORMED_LINE", `Line at byte ${start} of ${file} is not a JSON object`, {
		agent,
		file,
		byteOffset: start,
		raw: line.subarray(0, 200).toString("utf8")
	});
	return value;
}
/** True when the line holds any of the markers (a byte-level pre-filter before JSON.parse). */
function hasAnyMarker(line, markers) {
	for (const m of markers) if (line.indexOf(m) !== -1) return true;
	return false;
}
var RESTART;
var init_core = __esmMin((() => {
	init_errors();
	RESTART = Symbol("sessionfold.restart");
}));
// dist/cursors/read-jsonl.js
/**
* The file adapter around a LineCore: `fs.read` into one reused buffer, lines through the LineSplitter,
* events out of the core, and byte-exact resume (cursors-and-versioning):
*
* - A cursor is valid when its parser string matches, the file is at least `offset` bytes long and the
*   sha256 of the first `offset` bytes equals `prefixHash`. The check reads the prefix once without parsing
*   it, and the same running hash is extended over the new bytes for the next cursor.
* - `onStart` fires once before any event, even for an empty file; `onCursor` once when the read completes,
*   never when the consumer breaks out or the read throws.
* - File I/O is synchronous (`readSync` into the reused buffer, one call per chunk) inside the async
*   generator, which still yields after every chunk. Measured on 511 MB / 1,177 files of a generated history,
*   usage-only: the promise API spent ~25% of the wall time waiting on libuv's thread pool (open, fstat,
*   read, close per file); a page-cached 1 MiB readSync takes a fraction of a millisecond.
* - A resumed read buffers its events until it completes (the tail is usually small), because an id whose
*   32-bit hash was already seen forces a restart from byte 0, and `onStart` must tell the truth before the
*   first event. A tail larger than RESUME_BUFFER_LIMIT restarts directly (its cost is then close to a full
*   read anyway).
*/
function takeBuffer(bufferSize, fileSize) {
	const want = Math.max(1, Math.min(bufferSize, Math.ceil((fileSize + 1) / 65536) * 65536));
	for (let i = FREE_BUFFERS.length - 1; i >= 0; i--) {
		const b = FREE_BUFFERS[i];
		if (b.length >= want && b.length <= bufferSize) {
			FREE_BUFFERS.splice(i, 1);
			return b.length === want ? b : b.subarray(0, want);
		}
	}
	const fresh = Buffer.allocUnsafeSlow(want);
	OWN.add(fresh.buffer);
	return fresh;
}
function giveBuffer(b) {
	if (!OWN.has(b.buffer) || FREE_BUFFERS.length >= MAX_FREE_BUFFERS) return;
	FREE_BUFFERS.push(Buffer.from(b.buffer, 0, b.buffer.byteLength));
}
function isStoredState(v) {
	if (v === null || typeof v !== "object") return false;
	const s = v;
	return typeof s.replaced === "object" && s.replaced !== null && Array.isArray(s.kinds);
}
/** Throw CURSOR_INVALID unless `c` has the shape of a JSONL cursor. */
function assertJsonlCursor(c, allowEmptyHash = false) {
	const o = c;
	if (o === null || typeof o !== "object" || o.format !== "jsonl" || typeof o.parser !== "string" || typeof o.offset !== "number" || !Number.isSafeInteger(o.offset) || o.offset < 0 || typeof o.prefixHash !== "string" || !(/^[0-9a-f]{64}$/.test(o.prefixHash) || allowEmptyHash && o.prefixHash === "")) throw new SessionfoldError("CURSOR_INVALID", `Invalid cursor: expected {format:"jsonl", parser, offset, prefixHash}, got ${JSON.stringify(c)?.slice(0, 200)}`);
}
/** sha256 of the first `length` bytes of an open file, as a live Hash (so it can be extended). */
function hashPrefix(fd, length, buf) {
	const h = createHash("sha256");
	let pos = 0;
	while (pos < length) {
		const want = Math.min(buf.length, length - pos);
		const bytesRead = readSync(fd, buf, 0, want, pos);
		if (bytesRead === 0) break;
		h.update(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
		pos += bytesRead;
	}
	return h;
}
function filterCounts(counts, kinds) {
	const out = {};
	for (const [k, n] of Object.entries(counts)) if (n > 0 && kinds.has(k)) out[k] = n;
	return out;
}
function coversKinds(stored, wanted) {
	const set = new Set(stored);
	for (const k of wanted) if (!set.has(k)) return false;
	return true;
}
/** Build a codec's `read()` from its LineCore. */
function createJsonlRead(codec, core) {
	return (file, options) => readJsonl(codec, core, file, normalizeReadOptions(options));
}
async function* readJsonl(codec, core, file, options) {
	const parser = getParserString(codec);
	const resume = options.resume;
	let fh;
	let buf;
	try {
		fh = openSync(file, "r");
	} catch (cause) {
		const code = cause.code;
		throw new SessionfoldError(code === "ENOENT" ? "SESSION_NOT_FOUND" : "IO_ERROR", `Cannot open ${file}: ${code ?? cause}`, {
			agent: codec.id,
			file,
			cause
		});
	}
	try {
		const stat = fstatSync(fh);
		if (stat.isDirectory()) throw new SessionfoldError("IO_ERROR", `Cannot read ${file}: it is a directory`, {
			agent: codec.id,
			file
		});
		const size = stat.size;
		const readBuf = takeBuffer(options.bufferSize, size);
		buf = readBuf;
		const ctx = {
			file,
			options
		};
		const info = options.info;
		let start = {
			restarted: true,
			reason: "no-cursor",
			replaced: {}
		};
		let state;
		let offset = 0;
		const verify = resume?.verifyPrefix !== false;
		let hash = resume && verify ? createHash("sha256") : void 0;
		if (resume?.from !== void 0 && resume.from !== null) {
			const from = resume.from;
			if (from.format !== "jsonl") start = {
				restarted: true,
				reason: "parser-changed",
				replaced: {}
			};
			else {
				assertJsonlCursor(from, !verify);
				const stored = from.state;
				if (from.parser !== parser || !isStoredState(stored)) start = {
					restarted: true,
					reason: "parser-changed",
					replaced: {}
				};
				else if (!coversKinds(stored.kinds, options.kinds)) start = {
					restarted: true,
					reason: "kinds-changed",
					replaced: {}
				};
				else if (size < from.offset) start = {
					restarted: true,
					reason: "file-shrunk",
					replaced: {}
				};
				else if (size - from.offset > 268435456) start = {
					restarted: true,
					reason: "prefix-changed",
					replaced: {}
				};
				else {
					const h = verify ? hashPrefix(fh, from.offset, readBuf) : void 0;
					if (h !== void 0 && h.copy().digest("hex") !== from.prefixHash) start = {
						restarted: true,
						reason: "prefix-changed",
						replaced: {}
					};
					else {
						state = core.restore(stored.core, ctx);
						offset = from.offset;
						hash = h;
						start = {
							restarted: false,
							replaced: filterCounts(stored.replaced, options.kinds)
						};
					}
				}
			}
		}
		if (state !== void 0) {
			const held = [];
			const result = await scan(fh, readBuf, core, state, offset, size, hash, options, file, (e) => held.push(e));
			if (result !== RESTART) {
				resume?.onStart?.(start);
				for (const e of held) yield e;
				finish(result);
				return;
			}
			start = {
				restarted: true,
				reason: "id-collision",
				replaced: {}
			};
			info.bytes = 0;
			info.lines = 0;
			info.events = 0;
			info.skippedLines = 0;
			info.filteredLines = 0;
			hash = verify ? createHash("sha256") : void 0;
		}
		resume?.onStart?.(start);
		state = core.init(ctx);
		const queue = [];
		const it = scanStreaming$1(fh, readBuf, core, state, size, hash, options, file, queue);
		let r = await it.next();
		while (!r.done) {
			for (const e of queue) yield e;
			queue.length = 0;
			r = await it.next();
		}
		for (const e of queue) yield e;
		finish(r.value);
		function finish(res) {
			if (!resume?.onCursor) return;
			const cursor = {
				format: "jsonl",
				version: 1,
				parser,
				offset: res.committed,
				prefixHash: verify ? (res.hash ?? createHash("sha256")).digest("hex") : "",
				state: {
					core: core.snapshot(state),
					replaced: res.replaced,
					kinds: [...options.kinds]
				}
			};
			resume.onCursor({
				cursor,
				partialLine: res.partialLine,
				info: { ...info }
			});
		}
	} finally {
		closeSync(fh);
		if (buf !== void 0) giveBuffer(buf);
	}
}
function makeSplitter(fh, core, state, offset, hash, options, file, emit, onRestart) {
	const info = options.info;
	const kinds = options.kinds;
	const wrapped = options.allKinds ? (e) => {
		info.events++;
		emit(e);
	} : (e) => {
		if (kinds.has(e.type)) {
			info.events++;
			emit(e);
		}
	};
	const skip = (err) => {
		if (options.strict) throw new SessionfoldError("PARSE_ERROR", err.message, {
			agent: err.agent,
			file,
			byteOffset: err.byteOffset,
			cause: err
		});
		info.skippedLines++;
		options.onSkip?.(err);
	};
	let restarted = false;
	const markers = core.markers;
	return new LineSplitter({
		startOffset: offset,
		maxLineBytes: options.maxLineBytes,
		hash,
		filter: markers === void 0 ? void 0 : {
			markers: () => markers(state),
			onFiltered: () => {
				if (!restarted) info.filteredLines++;
			},
			readAt: (b, position) => readSync(fh, b, 0, b.length, position)
		},
		onLine(line, start) {
			if (restarted || line.length === 0) return;
			try {
				if (core.line(state, line, start, wrapped) === RESTART) {
					restarted = true;
					onRestart();
				}
			} catch (e) {
				if (e instanceof SessionfoldError && (e.code === "MALFORMED_LINE" || e.code === "PARSE_ERROR")) skip(e);
				else throw e;
			}
		},
		onLongLine(start, _next, length) {
			skip(new SessionfoldError("LINE_TOO_LONG", `Line at byte ${start} of ${file} is ${length} bytes, over maxLineBytes ${options.maxLineBytes}`, {
				file,
				byteOffset: start
			}));
		}
	});
}
/** Read [offset, size) into the core; RESTART when a hashed id collides. */
async function scan(fh, buf, core, state, offset, size, hash, options, file, emit) {
	let restart = false;
	const splitter = makeSplitter(fh, core, state, offset, hash, options, file, emit, () => restart = true);
	const onBytes = options.resume?.onBytes;
	let pos = offset;
	while (pos < size) {
		const bytesRead = readSync(fh, buf, 0, Math.min(buf.length, size - pos), pos);
		if (bytesRead === 0) break;
		options.info.bytes += bytesRead;
		onBytes?.(buf.subarray(0, bytesRead), pos);
		splitter.push(buf, bytesRead);
		if (restart) return RESTART;
		pos += bytesRead;
	}
	return endScan(core, state, splitter, options, emit);
}
function endScan(core, state, splitter, options, emit) {
	const info = options.info;
	const replaced = core.end(state, (e) => {
		if (options.kinds.has(e.type)) {
			info.events++;
			emit(e);
		}
	});
	info.lines += splitter.lines;
	info.bytesCommitted = splitter.committed;
	return {
		committed: splitter.committed,
		partialLine: splitter.pendingBytes > 0,
		replaced: filterCounts(replaced, options.kinds),
		hash: splitter.hash
	};
}
/** A full read from byte 0: events go to `queue`, and the generator yields after each chunk. */
async function* scanStreaming$1(fh, buf, core, state, size, hash, options, file, queue) {
	const emit = (e) => queue.push(e);
	const splitter = makeSplitter(fh, core, state, 0, hash, options, file, emit, () => void 0);
	const onBytes = options.resume?.onBytes;
	let pos = 0;
	while (pos < size) {
		const bytesRead = readSync(fh, buf, 0, Math.min(buf.length, size - pos), pos);
		if (bytesRead === 0) break;
		options.info.bytes += bytesRead;
		onBytes?.(buf.subarray(0, bytesRead), pos);
		splitter.push(buf, bytesRead);
		pos += bytesRead;
		if (queue.length > 0) yield;
	}
	return endScan(core, state, splitter, options, emit);
}
var FREE_BUFFERS, MAX_FREE_BUFFERS, OWN;
var init_read_jsonl = __esmMin((() => {
	init_codec();
	init_errors();
	init_line_splitter();
	init_core();
	FREE_BUFFERS = [];
	MAX_FREE_BUFFERS = 8;
	OWN = /* @__PURE__ */ new WeakSet();
}));
// dist/codecs/sessionfold-jsonl/schema.js
function isExportHeader(v) {
	return v.type === "sessionfold.session" && typeof v.sessionId === "string";
}
function isExportMessage(v) {
	return v.type === "sessionfold.message" && typeof v.role === "string";
}
var HEADER_TYPE, MESSAGE_TYPE;
var init_schema$2 = __esmMin((() => {
	HEADER_TYPE = "sessionfold.session";
	MESSAGE_TYPE = "sessionfold.message";
}));
// dist/codecs/sessionfold-jsonl/parse.js
/**
* The engine of the sessionfold-jsonl codec: pure and synchronous. A header line sets the session; every
* message line yields a `message`, its tool calls, its tool result and its usage.
*/
function num(v) {
	return typeof v === "number" && Number.isFinite(v) ? v : 0;
}
function str$2(v) {
	return typeof v === "string" ? v : void 0;
}
var CODEC_ID$2, USAGE_MARKERS, ROLES, sessionfoldJsonlCore;
var init_parse$2 = __esmMin((() => {
	init_core();
	init_schema$2();
	CODEC_ID$2 = "sessionfold-jsonl";
	USAGE_MARKERS = [Buffer.from("\"usage\""), Buffer.from("sessionfold.session")];
	ROLES = /* @__PURE__ */ new Set([
		"user",
		"assistant",
		"system",
		"tool"
	]);
	sessionfoldJsonlCore = {
		init(ctx) {
			const onlyUsage = ctx.options.kinds.size === 1 && ctx.options.kinds.has("usage");
			return {
				file: ctx.file,
				sessionId: basename(ctx.file).replace(/\.jsonl$/, ""),
				model: void 0,
				headerSeen: false,
				markers: onlyUsage ? USAGE_MARKERS : void 0
			};
		},
		restore(snapshot, ctx) {
			const s = this.init(ctx);
			const o = snapshot ?? {};
			if (typeof o.sessionId === "string") s.sessionId = o.sessionId;
			if (typeof o.model === "string") s.model = o.model;
			s.headerSeen = o.headerSeen === true;
			return s;
		},
		snapshot(s) {
			return {
				sessionId: s.sessionId,
				model: s.model,
				headerSeen: s.headerSeen
			};
		},
		line(s, line, start, emit) {
			if (s.markers !== void 0 && !hasAnyMarker(line, s.markers)) return;
			const rec = parseJsonObject(line, start, CODEC_ID$2, s.file);
			if (isExportHeader(rec)) {
				s.sessionId = rec.sessionId;
				s.model = str$2(rec.model);
				s.headerSeen = true;
				emit({
					type: "session",
					agent: CODEC_ID$2,
					sessionId: s.sessionId,
					offset: start,
					nativeId: rec.sessionId,
					...str$2(rec.cwd) !== void 0 && { cwd: rec.cwd },
					...str$2(rec.createdAt) !== void 0 && { startedAt: rec.createdAt },
					...str$2(rec.title) !== void 0 && { title: rec.title },
					...str$2(rec.forkedFrom) !== void 0 && { forkedFrom: rec.forkedFrom },
					...str$2(rec.model) !== void 0 && { model: rec.model },
					version: `${rec.agent}`
				});
				return;
			}
			if (!isExportMessage(rec)) return;
			const role = ROLES.has(rec.role) ? rec.role : "system";
			const ts = str$2(rec.timestamp);
			const nativeId = str$2(rec.id) ?? `${s.sessionId}#${num(rec.index)}`;
			const base = {
				agent: CODEC_ID$2,
				sessionId: s.sessionId,
				offset: start
			};
			if (rec.orphanUsage !== true) emit({
				type: "message",
				...base,
				role,
				text: typeof rec.content === "string" ? rec.content : "",
				...str$2(rec.thinking) !== void 0 && { thinking: rec.thinking },
				...ts !== void 0 && { timestamp: ts },
				...str$2(rec.model) !== void 0 && { model: rec.model },
				nativeId,
				...str$2(rec.subtype) !== void 0 && { subtype: rec.subtype }
			});
			if (Array.isArray(rec.toolCalls)) for (const tc of rec.toolCalls) {
				if (tc === null || typeof tc !== "object" || typeof tc.toolCallId !== "string") continue;
				emit({
					type: "tool_call",
					...base,
					callId: tc.toolCallId,
					name: String(tc.toolName ?? ""),
					input: tc.input ?? null,
					...ts !== void 0 && { timestamp: ts },
					messageId: nativeId
				});
			}
			const tr = rec.toolResult;
			if (tr !== void 0 && tr !== null && typeof tr === "object" && typeof tr.toolCallId === "string") emit({
				type: "tool_result",
				...base,
				callId: tr.toolCallId,
				toolName: String(tr.toolName ?? ""),
				output: tr.output ?? null,
				isError: tr.isError === true,
				...ts !== void 0 && { timestamp: ts },
				...typeof tr.durationMs === "number" && { durationMs: tr.durationMs }
			});
			const u = rec.usage;
			if (u !== void 0 && u !== null && typeof u === "object") {
				const model = str$2(u.model) ?? str$2(rec.model) ?? s.model;
				emit({
					type: "usage",
					...base,
					model: model ?? "unknown",
					...(model === void 0 || u.modelFallback === true) && { modelFallback: true },
					...str$2(u.provider) !== void 0 && { provider: u.provider },
					timestamp: ts ?? "1970-01-01T00:00:00.000Z",
					inputTokens: num(u.inputTokens),
					outputTokens: num(u.outputTokens),
					reasoningTokens: num(u.reasoningTokens),
					cacheReadTokens: num(u.cacheReadTokens),
					cacheWriteTokens: num(u.cacheWriteTokens),
					cacheWrite1hTokens: num(u.cacheWrite1hTokens),
					...typeof u.costUsd === "number" && { costUsd: u.costUsd },
					...str$2(u.speed) !== void 0 && { speed: u.speed },
					...typeof u.webSearchRequests === "number" && { webSearchRequests: u.webSearchRequests },
					singleRequest: u.singleRequest === true,
					dedupKey: str$2(u.dedupKey) ?? `sessionfold-jsonl:${s.sessionId}:${nativeId}`,
					messageId: nativeId
				});
			}
		},
		end() {
			return {};
		}
	};
}));
// dist/codecs/sessionfold-jsonl/paths.js
/** Where sessionfold keeps JSONL exports by default: `$SESSIONFOLD_EXPORT_DIR`, else `$XDG_DATA_HOME/sessionfold/exports`. */
function getExportRoots(env = process.env) {
	const explicit = env.SESSIONFOLD_EXPORT_DIR;
	if (explicit) return explicit.split(",").map((s) => s.trim()).filter(Boolean);
	const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
	return [join(data, "sessionfold", "exports")];
}
var init_paths$3 = __esmMin((() => {}));
// dist/codecs/sessionfold-jsonl/index.js
/**
* `sessionfold-jsonl`: sessionfold's own JSONL export (one header line, then one message per line). The
* first codec, so the reader and cursors are exercised through a real codec.
*/
async function* walk(root, dir) {
	let entries;
	try {
		entries = await readdir(dir, { withFileTypes: true });
	} catch {
		return;
	}
	for (const e of entries) {
		const p = join(dir, e.name);
		if (e.isDirectory()) yield* walk(root, p);
		else if (e.isFile() && e.name.endsWith(".jsonl")) yield {
			agent: CODEC_ID$2,
			path: p,
			root,
			sessionId: e.name.slice(0, -6)
		};
	}
}
var PARSER_VERSION$2, sessionfoldJsonl;
var init_sessionfold_jsonl = __esmMin((() => {
	init_read_jsonl();
	init_parse$2();
	init_paths$3();
	init_schema$2();
	PARSER_VERSION$2 = 2;
	sessionfoldJsonl = {
		id: CODEC_ID$2,
		aliases: ["sessionfold", "export"],
		displayName: "sessionfold JSONL export",
		parserVersion: PARSER_VERSION$2,
		capabilities: {
			incremental: true,
			persistence: "jsonl",
			eventsPrecedeMtime: false
		},
		defaultRoots: getExportRoots,
		async *discover(roots) {
			for (const r of roots) yield* walk(r, r);
		},
		async locate(roots, nativeId) {
			if (nativeId === "" || nativeId.includes("/") || nativeId.includes("\\") || nativeId === "." || nativeId === "..") return void 0;
			for (const r of roots) {
				const p = join(r, `${nativeId}.jsonl`);
				if (await stat(p).then((s) => s.isFile(), () => false)) return {
					agent: CODEC_ID$2,
					path: p,
					root: r,
					sessionId: nativeId
				};
			}
			for await (const f of sessionfoldJsonl.discover(roots)) if (f.sessionId === nativeId) return f;
		},
		getParseDependencies: () => [],
		lineCore: sessionfoldJsonlCore,
		read: createJsonlRead({
			id: CODEC_ID$2,
			parserVersion: PARSER_VERSION$2
		}, sessionfoldJsonlCore)
	};
}));
// dist/codecs/claude/schema.js
/** A plain JSON object (not null, not an array). */
function isRecord(v) {
	return v !== null && typeof v === "object" && !Array.isArray(v);
}
/** A non-empty string, else undefined. */
function str$1(v) {
	return typeof v === "string" && v.length > 0 ? v : void 0;
}
/** A non-negative finite token count, else 0. */
function count(v) {
	return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;
}
/** The timestamp when it parses as a date; sanitized fixtures hold placeholders like `[trimmed]`. */
function extractTimestamp(v) {
	return typeof v === "string" && !Number.isNaN(Date.parse(v)) ? v : void 0;
}
/** An object with a string `type`. */
function isContentBlock(v) {
	return isRecord(v) && typeof v.type === "string";
}
var USAGE_MARKER, TITLE_MARKER;
var init_schema$1 = __esmMin((() => {
	USAGE_MARKER = Buffer.from("\"usage\"");
	TITLE_MARKER = Buffer.from("-title\"");
}));
// dist/codecs/claude/meta.js
/**
* The subagent sidecar `agent-<id>.meta.json` (Claude Code 2.1+): read by the codec's `read()` before the
* transcript, and passed to the pure core, which puts it on the session event (agentType, spawnDepth, the
* spawning subagent as forkedFrom, the Task description as the fallback title). It is declared by
* `getParseDependencies`, so the event cache re-reads the transcript when the sidecar changes.
*
* A missing, oversized or unreadable sidecar is not an error of the transcript: the read goes on without it.
*/
/** The fields this codec uses from a parsed sidecar (unknown and mistyped fields are dropped). */
function extractSubagentMeta(value) {
	if (!isRecord(value)) return void 0;
	const depth = value.spawnDepth;
	const meta = {
		...str$1(value.agentType) !== void 0 && { agentType: value.agentType },
		...str$1(value.description) !== void 0 && { description: value.description },
		...typeof depth === "number" && Number.isInteger(depth) && depth >= 0 && { spawnDepth: depth },
		...str$1(value.parentAgentId) !== void 0 && { parentAgentId: value.parentAgentId }
	};
	return Object.keys(meta).length > 0 ? meta : void 0;
}
/**
* Read and parse a sidecar; undefined when there is none or it cannot be used. Synchronous inside: a
* history holds thousands of sidecars of ~200 bytes, and a promise round trip through libuv's pool per
* open, read and close cost ~0.1 s over ~2,000 of them (one profile of a 1.8 GB history; not a benchmark).
*/
async function readSubagentMeta(path) {
	return readSubagentMetaSync(path);
}
function readSubagentMetaSync(path) {
	let fd;
	try {
		fd = openSync(path, "r");
	} catch {
		return;
	}
	try {
		let n = 0;
		while (n < META_BUF.length) {
			const bytesRead = readSync(fd, META_BUF, n, META_BUF.length - n, n);
			if (bytesRead === 0) break;
			n += bytesRead;
		}
		if (n > 65536) return void 0;
		return extractSubagentMeta(JSON.parse(META_BUF.toString("utf8", 0, n)));
	} catch {
		return;
	} finally {
		closeSync(fd);
	}
}
var META_BUF;
var init_meta = __esmMin((() => {
	init_schema$1();
	META_BUF = Buffer.allocUnsafe(65537);
}));
// dist/cursors/ids.js
/**
* 32- and 64-bit xxhash of ids, for cursor state (seen-id sets) and dedup keys. xxhash-wasm initializes
* once per process (top-level await), after which every call is synchronous.
*/
/** 32-bit xxhash of a string id, as stored in cursor state. */
function hashId32(id) {
	return api$1.h32(id, 0) >>> 0;
}
/** Streaming 64-bit xxhash (used by the event cache's fast prefix fingerprint). */
function createHash64() {
	const h = api$1.create64();
	return {
		update(b) {
			h.update(b);
		},
		digest() {
			return h.digest().toString(16).padStart(16, "0");
		}
	};
}
var api$1;
var init_ids$1 = __esmMin((async () => {
	api$1 = await xxhash();
}));
// dist/codecs/claude/paths.js
/**
* Where Claude Code keeps transcripts, and what a transcript's path says about it.
*
* Layout under a root (`<config>/projects`):
*   <encoded-cwd>/<session-uuid>.jsonl                          a session
*   <encoded-cwd>/<session-uuid>/subagents/agent-<id>.jsonl     a subagent (Task) transcript, 2.1+
*   <encoded-cwd>/<session-uuid>/subagents/agent-<id>.meta.json its sidecar ({agentType, …})
*   <encoded-cwd>/agent-<id>.jsonl                              a subagent transcript, before 2.1
* The encoded cwd replaces every non-alphanumeric character by `-`, so it cannot be decoded back: the cwd
* comes from the lines, never from the directory name.
*
* The file name is the session id (`claude --resume <id>` resolves on it), so the path wins over the
* `sessionId` field of the lines, which a resumed or forked copy may carry over from its origin.
*/
function expandHome(p, home) {
	if (p === "~") return home;
	if (p.startsWith("~/")) return join(home, p.slice(2));
	return p;
}
/**
* Default roots, each a `projects/` directory: every comma-separated entry of `$CLAUDE_CONFIG_DIR` (an entry
* may name the config dir or its `projects/`), else `$XDG_CONFIG_HOME/claude/projects` (default
* `~/.config/claude/projects`) and `~/.claude/projects`. Missing roots are kept: `discover` skips them.
*/
function getClaudeRoots(env = process.env) {
	const home = env.HOME || homedir();
	const explicit = env.CLAUDE_CONFIG_DIR?.trim();
	const roots = [];
	if (explicit) for (const raw of explicit.split(",")) {
		const entry = raw.trim();
		if (!entry) continue;
		const p = expandHome(entry, home).replace(/[\\/]+$/, "") || "/";
		roots.push(basename(p) === "projects" ? p : join(p, "projects"));
	}
	else {
		const config = env.XDG_CONFIG_HOME?.trim() || join(home, ".config");
		roots.push(join(config, "claude", "projects"), join(home, ".claude", "projects"));
	}
	return [...new Set(roots)];
}
function getClaudePathInfo(file) {
	const name = basename(file);
	const stem = name.endsWith(".jsonl") ? name.slice(0, -6) : name;
	const dir = dirname(file);
	const inSubagents = basename(dir) === "subagents" && stem.startsWith("agent-");
	const parent = inSubagents ? basename(dirname(dir)) : void 0;
	return {
		stem,
		sessionId: UUID_RE.test(stem) || AGENT_RE.test(stem) || inSubagents ? stem : void 0,
		subagent: inSubagents,
		parentSessionId: parent !== void 0 && parent !== "" ? parent : void 0
	};
}
/** The subagent sidecar `agent-<id>.meta.json` next to `agent-<id>.jsonl`; none for a session file. */
function getSubagentMetaPath(file) {
	const info = getClaudePathInfo(file);
	if (!info.stem.startsWith("agent-") || !file.endsWith(".jsonl")) return void 0;
	return join(dirname(file), `${info.stem}.meta.json`);
}
/**
* Synchronous on purpose: a history has thousands of small directories, and a `readdirSync` loop lists them
* several times faster than as many promises through libuv's thread pool (a warm report waits on nothing else).
*/
function listDir(dir) {
	try {
		return readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
}
function sessionFile$1(path, root, subagent) {
	const stem = basename(path).slice(0, -6);
	return {
		agent: CODEC_ID$1,
		path,
		root,
		sessionId: stem,
		...subagent && { subagent: true }
	};
}
/** Every transcript under the roots, project by project, sorted by name for stable output. */
async function* discoverClaudeFiles(roots) {
	for (const root of roots) {
		const projects = listDir(root).filter((e) => e.isDirectory()).map((e) => e.name).sort();
		for (const project of projects) {
			const dir = join(root, project);
			const entries = listDir(dir).sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
			for (const e of entries) if (e.isFile() && e.name.endsWith(".jsonl")) yield sessionFile$1(join(dir, e.name), root, e.name.startsWith("agent-"));
			for (const e of entries) {
				if (!e.isDirectory()) continue;
				const sub = join(dir, e.name, "subagents");
				const agents = listDir(sub).filter((a) => a.isFile() && a.name.startsWith("agent-") && a.name.endsWith(".jsonl")).map((a) => a.name).sort();
				for (const a of agents) yield sessionFile$1(join(sub, a), root, true);
			}
		}
	}
}
async function isFile(p) {
	return stat(p).then((s) => s.isFile(), () => false);
}
/**
* Find a transcript by id with one `stat` per project directory (no file is opened). Subagent ids
* (`agent-<id>`) also look in every session's `subagents/` folder.
*/
async function locateClaudeFile(roots, nativeId) {
	if (!nativeId || nativeId.includes("/") || nativeId.includes("\\") || nativeId === "." || nativeId === "..") return void 0;
	const name = `${nativeId}.jsonl`;
	const agent = nativeId.startsWith("agent-");
	for (const root of roots) {
		const projects = listDir(root).filter((e) => e.isDirectory()).map((e) => e.name).sort();
		for (const project of projects) {
			const dir = join(root, project);
			const direct = join(dir, name);
			if (await isFile(direct)) return sessionFile$1(direct, root, agent);
			if (!agent) continue;
			for (const e of await listDir(dir)) {
				if (!e.isDirectory()) continue;
				const p = join(dir, e.name, "subagents", name);
				if (await isFile(p)) return sessionFile$1(p, root, true);
			}
		}
	}
}
var CODEC_ID$1, UUID_RE, AGENT_RE;
var init_paths$2 = __esmMin((() => {
	CODEC_ID$1 = "claude";
	UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
	AGENT_RE = /^agent-[0-9a-z]+$/i;
}));
// dist/codecs/claude/state.js
/** The session id every event of the file carries. */
function currentSessionId(s) {
	return s.path.sessionId ?? s.lineSessionId ?? s.path.stem;
}
/** Fresh state for a read from byte 0; kinds ⊆ {usage, session} turn the byte pre-filter on. */
function initClaudeState(ctx, meta) {
	const kinds = ctx.options.kinds;
	const onlySessionUsage = [...kinds].every((k) => k === "usage" || k === "session");
	return {
		file: ctx.file,
		path: getClaudePathInfo(ctx.file),
		info: ctx.options.info,
		filter: onlySessionUsage ? {
			usage: kinds.has("usage"),
			titles: kinds.has("session")
		} : void 0,
		meta,
		lineSessionId: void 0,
		sessionEmitted: false,
		session: void 0,
		titles: {},
		pending: [],
		calls: /* @__PURE__ */ new Map(),
		closed: [],
		seen: /* @__PURE__ */ new Set(),
		seenHashes: void 0,
		scanned: {
			fast: 0,
			fallback: 0
		}
	};
}
/** Remember an open call, dropping the oldest beyond MAX_OPEN_CALLS. */
function openCall(s, id, call) {
	s.calls.delete(id);
	if (s.calls.size >= 256) {
		const oldest = s.calls.keys().next();
		if (!oldest.done) s.calls.delete(oldest.value);
	}
	s.calls.set(id, call);
}
function close(s, id) {
	s.calls.delete(id);
	s.closed.push(id);
	if (s.closed.length > 32) s.closed.shift();
}
/** True when a result for this call id was already seen recently (and the call is not open again). */
function isAnsweredCall(s, id) {
	return !s.calls.has(id) && s.closed.includes(id);
}
/** Close and return the call a result answers: by id, else by issuing line, else (no ids at all) the oldest. */
function takeCall(s, ids, fromUuid, oldest) {
	for (const id of ids) {
		if (id === void 0) continue;
		const call = s.calls.get(id);
		if (call) {
			close(s, id);
			return [id, call];
		}
	}
	if (fromUuid !== void 0) {
		for (const [id, call] of s.calls) if (call.from === fromUuid) {
			close(s, id);
			return [id, call];
		}
	}
	if (oldest) {
		const first = s.calls.entries().next();
		if (!first.done) {
			close(s, first.value[0]);
			return first.value;
		}
	}
}
function encodeHashes$1(hashes) {
	const sorted = Uint32Array.from(hashes).sort();
	const buf = Buffer.allocUnsafe(sorted.length * 4);
	for (let i = 0; i < sorted.length; i++) buf.writeUInt32LE(sorted[i], i * 4);
	return buf.toString("base64");
}
function decodeHashes(text) {
	const buf = Buffer.from(text, "base64");
	if (buf.length % 4 !== 0) throw invalid("seen");
	const out = /* @__PURE__ */ new Set();
	for (let i = 0; i < buf.length; i += 4) out.add(buf.readUInt32LE(i));
	return out;
}
/** Cursor JSON: exact keys are hashed here, so a fresh read pays for hashing once per cursor. */
function snapshotClaudeState(s) {
	const hashes = new Set(s.seenHashes);
	for (const k of s.seen) hashes.add(hashId32(k));
	return {
		v: 3,
		lineSessionId: s.lineSessionId ?? null,
		sessionEmitted: s.sessionEmitted,
		session: s.session ?? null,
		titles: { ...s.titles },
		pending: s.pending.map((p) => ({ ...p })),
		calls: [...s.calls].map(([id, c]) => c.from === void 0 ? [id, c.name] : [
			id,
			c.name,
			c.from
		]),
		closed: [...s.closed],
		seen: encodeHashes$1(hashes)
	};
}
function invalid(field) {
	return new SessionfoldError("CURSOR_INVALID", `Invalid claude cursor state: bad ${field}`, { agent: "claude" });
}
/** State from a cursor's snapshot; CURSOR_INVALID for a shape it cannot use. */
function restoreClaudeState(snapshot, ctx, meta) {
	if (!isRecord(snapshot) || snapshot.v !== 3) throw invalid("version");
	const s = initClaudeState(ctx, meta);
	const { lineSessionId, sessionEmitted, session, titles, pending, calls, closed, seen } = snapshot;
	if (lineSessionId !== null && typeof lineSessionId !== "string") throw invalid("lineSessionId");
	if (typeof sessionEmitted !== "boolean") throw invalid("sessionEmitted");
	if (session !== null && !(isRecord(session) && session.type === "session")) throw invalid("session");
	if (!isRecord(titles) || !Object.values(titles).every((t) => typeof t === "string")) throw invalid("titles");
	if (!Array.isArray(pending) || !pending.every((p) => isRecord(p) && typeof p.key === "string" && isRecord(p.event) && p.event.type === "usage")) throw invalid("pending");
	if (!Array.isArray(calls)) throw invalid("calls");
	if (!Array.isArray(closed) || !closed.every((c) => typeof c === "string")) throw invalid("closed");
	if (typeof seen !== "string") throw invalid("seen");
	s.lineSessionId = lineSessionId ?? void 0;
	s.sessionEmitted = sessionEmitted;
	s.session = session === null ? void 0 : session;
	s.titles = {
		...typeof titles.custom === "string" && { custom: titles.custom },
		...typeof titles.ai === "string" && { ai: titles.ai }
	};
	s.pending = pending.map((p) => ({ ...p }));
	for (const c of calls) {
		if (!Array.isArray(c) || typeof c[0] !== "string" || typeof c[1] !== "string" || c[2] !== void 0 && typeof c[2] !== "string") throw invalid("calls");
		openCall(s, c[0], {
			name: c[1],
			from: c[2]
		});
	}
	s.closed = closed.slice(-32);
	s.seenHashes = decodeHashes(seen);
	return s;
}
var init_state = __esmMin((async () => {
	await init_ids$1();
	init_errors();
	init_paths$2();
	init_schema$1();
}));
// dist/codecs/claude/usage.js
/**
* The provider a model id says served the request: a gateway's `<provider>/<model>` prefix, `aws` for a
* Bedrock id, `google` for a Vertex id, `anthropic` for a plain `claude-…` id, and undefined for anything
* else (Claude Code pointed at another vendor's Anthropic-compatible endpoint records that vendor's model).
*/
function getModelProvider(model) {
	const slash = model.indexOf("/");
	if (slash > 0) return model.slice(0, slash).toLowerCase();
	const m = model.toLowerCase();
	if (BEDROCK_MODEL_RE.test(m)) return "aws";
	if (VERTEX_MODEL_RE.test(m)) return "google";
	if (m.startsWith("claude")) return "anthropic";
}
/** The dedup key of a response: message id plus request id, or whichever of them exists. */
function getResponseKey(messageId, requestId) {
	if (messageId !== void 0) return requestId !== void 0 ? `${CODEC_ID$1}:${messageId}:${requestId}` : `${CODEC_ID$1}:${messageId}`;
	if (requestId !== void 0) return `${CODEC_ID$1}::${requestId}`;
}
/**
* The usage candidate of a parsed line, or undefined when the line holds none: no `message.usage` object,
* or a `<synthetic>` message (written by Claude Code itself, no API call).
*/
function extractUsage(rec, sessionId, start) {
	const msg = rec.message;
	if (!isRecord(msg)) return void 0;
	const u = msg.usage;
	if (!isRecord(u)) return void 0;
	const model = str$1(msg.model);
	if (model === "<synthetic>") return void 0;
	const messageId = str$1(msg.id);
	const key = getResponseKey(messageId, str$1(rec.requestId));
	const breakdown = isRecord(u.cache_creation) ? u.cache_creation : void 0;
	const write5m = count(breakdown?.ephemeral_5m_input_tokens);
	const write1h = count(breakdown?.ephemeral_1h_input_tokens);
	const cacheWrite = typeof u.cache_creation_input_tokens === "number" ? count(u.cache_creation_input_tokens) : write5m + write1h;
	const outputTokens = count(u.output_tokens);
	const details = isRecord(u.output_tokens_details) ? u.output_tokens_details : void 0;
	const cost = rec.costUSD;
	const uuid = str$1(rec.uuid);
	const provider = model === void 0 ? void 0 : getModelProvider(model);
	const speed = str$1(u.speed);
	const webSearches = count(isRecord(u.server_tool_use) ? u.server_tool_use.web_search_requests : void 0);
	return {
		key,
		event: {
			type: "usage",
			agent: CODEC_ID$1,
			sessionId,
			offset: start,
			model: model ?? "unknown",
			...model === void 0 && { modelFallback: true },
			...provider !== void 0 && { provider },
			timestamp: extractTimestamp(rec.timestamp) ?? "1970-01-01T00:00:00.000Z",
			inputTokens: count(u.input_tokens),
			outputTokens,
			reasoningTokens: Math.min(count(details?.thinking_tokens), outputTokens),
			cacheReadTokens: count(u.cache_read_input_tokens),
			cacheWriteTokens: cacheWrite,
			cacheWrite1hTokens: Math.min(write1h, cacheWrite),
			...typeof cost === "number" && Number.isFinite(cost) && { costUsd: cost },
			...speed !== void 0 && speed !== "standard" && { speed },
			...webSearches > 0 && { webSearchRequests: webSearches },
			singleRequest: true,
			dedupKey: key ?? `claude:line:${sessionId}:${uuid ?? `@${start}`}`,
			...messageId !== void 0 && { messageId }
		}
	};
}
function totalTokens$1(e) {
	return e.inputTokens + e.outputTokens + e.cacheReadTokens + e.cacheWriteTokens;
}
/** True when `next` is a larger record of the same response than `current` (it replaces it). */
function isLargerUsage(next, current) {
	if (next.outputTokens !== current.outputTokens) return next.outputTokens > current.outputTokens;
	return totalTokens$1(next) > totalTokens$1(current);
}
var USAGE_LINE_FIELDS, BEDROCK_MODEL_RE, VERTEX_MODEL_RE;
var init_usage = __esmMin((() => {
	init_paths$2();
	init_schema$1();
	USAGE_LINE_FIELDS = {
		sessionId: true,
		requestId: true,
		costUSD: true,
		uuid: true,
		timestamp: true,
		message: {
			id: true,
			model: true,
			usage: {
				input_tokens: true,
				output_tokens: true,
				cache_creation_input_tokens: true,
				cache_read_input_tokens: true,
				cache_creation: {
					ephemeral_5m_input_tokens: true,
					ephemeral_1h_input_tokens: true
				},
				output_tokens_details: { thinking_tokens: true },
				server_tool_use: { web_search_requests: true },
				speed: true
			}
		}
	};
	BEDROCK_MODEL_RE = /^(?:[a-z]{2,6}(?:-[a-z]+)?\.)?anthropic\./;
	VERTEX_MODEL_RE = /^claude-[^@/]*@\d{8}$/;
}));
// dist/codecs/claude/usage-scan.js
/** Compile a projection once (at module load), for `scanFields`. */
function compileProjection(p) {
	const fields = Object.entries(p).map(([name, v]) => {
		if (name === "__proto__") throw new Error("compileProjection: a projection cannot name __proto__");
		return {
			key: [...Buffer.from(name)],
			name,
			sub: v === true ? void 0 : compileProjection(v)
		};
	});
	const byLength = [];
	fields.forEach((f, k) => (byLength[f.key.length] ??= []).push(k));
	return {
		fields,
		byLength: Array.from(byLength)
	};
}
/**
* The index of the quote that closes the string opened at `i`, checking its content on the way, or -1
* (unterminated, a raw control byte, an invalid escape).
*/
function stringEnd(b, i) {
	const n = b.length;
	const w = words;
	const off = lineOffset;
	let escapes = false;
	let j = i + 1;
	for (;;) {
		if (USE_WORDS && (off + j & 3) === 0) {
			let k = off + j >>> 2;
			const end = off + n >>> 2;
			while (k < end) {
				const x = w[k];
				const yb = x ^ 1549556828;
				const yq = x ^ 572662306;
				if (((x - 538976288 & ~x | yb - 16843009 & ~yb | yq - 16843009 & ~yq) & 2155905152) !== 0) break;
				k++;
			}
			j = k * 4 - off;
		}
		const c = b[j];
		if (c === QUOTE) {
			lastEscaped = escapes;
			return j;
		}
		if (c === BACKSLASH) {
			const e = b[j + 1];
			if (e === 117) {
				if (j + 5 >= n || !HEX[b[j + 2]] || !HEX[b[j + 3]] || !HEX[b[j + 4]] || !HEX[b[j + 5]]) return -1;
				j += 6;
			} else if (e !== void 0 && SIMPLE_ESCAPE[e]) j += 2;
			else return -1;
			escapes = true;
		} else if (c === void 0 || c < SPACE) return -1;
		else j++;
	}
}
function skipSpace(b, i) {
	while (b[i] === SPACE) i++;
	return i;
}
function isDigit(c) {
	return c !== void 0 && c >= ZERO && c <= NINE;
}
function matchWord(b, i, word) {
	for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return -1;
	return i + word.length;
}
/** End of the number or literal at `i` (JSON grammar), or -1. */
function scalarEnd(b, i) {
	const c = b[i];
	if (c === 116) return matchWord(b, i, TRUE);
	if (c === 102) return matchWord(b, i, FALSE);
	if (c === 110) return matchWord(b, i, NULL);
	let j = i;
	if (b[j] === MINUS) j++;
	if (b[j] === ZERO) j++;
	else if (isDigit(b[j])) while (isDigit(b[j])) j++;
	else return -1;
	if (b[j] === DOT) {
		j++;
		if (!isDigit(b[j])) return -1;
		while (isDigit(b[j])) j++;
	}
	if (b[j] === 101 || b[j] === 69) {
		j++;
		if (b[j] === PLUS || b[j] === MINUS) j++;
		if (!isDigit(b[j])) return -1;
		while (isDigit(b[j])) j++;
	}
	return j;
}
/** End (exclusive) of the value at `i`, validating it, or -1. */
function valueEnd(b, i, depth) {
	const c = b[i];
	if (c === QUOTE) {
		const q = stringEnd(b, i);
		return q < 0 ? -1 : q + 1;
	}
	if (c === LBRACE) return objectEnd(b, i, depth + 1);
	if (c === LBRACKET) return arrayEnd(b, i, depth + 1);
	return scalarEnd(b, i);
}
function arrayEnd(b, i, depth) {
	if (depth > 256) return -1;
	i = skipSpace(b, i + 1);
	if (b[i] === RBRACKET) return i + 1;
	for (;;) {
		i = valueEnd(b, i, depth);
		if (i < 0) return -1;
		i = skipSpace(b, i);
		const c = b[i];
		if (c === COMMA) i = skipSpace(b, i + 1);
		else if (c === RBRACKET) return i + 1;
		else return -1;
	}
}
/** End (exclusive) of the object at `i`, validating it, or -1. */
function objectEnd(b, i, depth) {
	if (depth > 256) return -1;
	i = skipSpace(b, i + 1);
	if (b[i] === RBRACE) return i + 1;
	for (;;) {
		if (b[i] !== QUOTE) return -1;
		const q = stringEnd(b, i);
		if (q < 0) return -1;
		i = skipSpace(b, q + 1);
		if (b[i] !== COLON) return -1;
		i = valueEnd(b, skipSpace(b, i + 1), depth);
		if (i < 0) return -1;
		i = skipSpace(b, i);
		const c = b[i];
		if (c === COMMA) i = skipSpace(b, i + 1);
		else if (c === RBRACE) return i + 1;
		else return -1;
	}
}
/**
* Which field the key bytes [from, to) spell: its index, -1 for none, -2 when the key has escapes (it may
* decode to a wanted one: JSON.parse decides). Call right after stringEnd passed the key.
*/
function fieldIndex(b, from, to, p) {
	if (lastEscaped) return -2;
	const len = to - from;
	const candidates = p.byLength[len];
	if (candidates === void 0) return -1;
	for (let c = 0; c < candidates.length; c++) {
		const k = candidates[c];
		const key = p.fields[k].key;
		let j = 0;
		while (j < len && b[from + j] === key[j]) j++;
		if (j === len) return k;
	}
	return -1;
}
/**
* The value of bytes [from, to) as JSON.parse gives it: strings without escapes and short integers are
* decoded here (ids, timestamps, token counts), anything else by JSON.parse of its own bytes (the same
* decoding as the whole line's: the slice starts and ends on ASCII bytes).
*/
function parseSlice(b, from, to, escapes) {
	const c = b[from];
	if (c === QUOTE) {
		if (!escapes) return b.toString("utf8", from + 1, to - 1);
	} else if (c !== void 0 && c >= ZERO && c <= NINE && to - from < 16) {
		let v = 0;
		let j = from;
		while (j < to && isDigit(b[j])) v = v * 10 + (b[j++] - ZERO);
		if (j === to) return v;
	}
	return JSON.parse(b.toString("utf8", from, to));
}
/**
* Walk the object at `i` like objectEnd, and put the projected fields into `out`. Returns the end
* (exclusive) or -1.
*/
function collectObject(b, i, depth, out, p) {
	if (depth > 256) return -1;
	i = skipSpace(b, i + 1);
	if (b[i] === RBRACE) return i + 1;
	for (;;) {
		if (b[i] !== QUOTE) return -1;
		const q = stringEnd(b, i);
		if (q < 0) return -1;
		const k = fieldIndex(b, i + 1, q, p);
		if (k === -2) return -1;
		i = skipSpace(b, q + 1);
		if (b[i] !== COLON) return -1;
		const v = skipSpace(b, i + 1);
		const f = k >= 0 ? p.fields[k] : void 0;
		if (f === void 0) {
			i = valueEnd(b, v, depth);
			if (i < 0) return -1;
		} else if (f.sub !== void 0 && b[v] === LBRACE) {
			const sub = {};
			i = collectObject(b, v, depth + 1, sub, f.sub);
			if (i < 0) return -1;
			out[f.name] = sub;
		} else {
			i = valueEnd(b, v, depth);
			if (i < 0) return -1;
			out[f.name] = parseSlice(b, v, i, lastEscaped);
		}
		i = skipSpace(b, i);
		const c = b[i];
		if (c === COMMA) i = skipSpace(b, i + 1);
		else if (c === RBRACE) return i + 1;
		else return -1;
	}
}
/**
* The projected fields of a JSON object line, exactly as `JSON.parse` of the whole line would give them.
* Undefined when the line is not a valid JSON object, or when only `JSON.parse` can tell (escaped collected
* keys, whitespace other than spaces, deep nesting): parse the line then.
*
* @example
* const p = compileProjection({ uuid: true, message: { id: true } });
* scanFields(Buffer.from('{"message":{"id":"m","content":[]},"uuid":"u","x":1}'), p)
* // → { message: { id: 'm' }, uuid: 'u' }
*/
function scanFields(line, fields) {
	const start = skipSpace(line, 0);
	if (line[start] !== LBRACE) return void 0;
	if (USE_WORDS) words = new Int32Array(line.buffer, 0, line.buffer.byteLength >>> 2);
	lineOffset = line.byteOffset;
	try {
		const out = {};
		const end = collectObject(line, start, 1, out, fields);
		return end < 0 || skipSpace(line, end) !== line.length ? void 0 : out;
	} finally {
		words = NO_WORDS;
	}
}
var QUOTE, BACKSLASH, SPACE, COMMA, COLON, LBRACE, RBRACE, LBRACKET, RBRACKET, MINUS, PLUS, DOT, ZERO, NINE, TRUE, FALSE, NULL, SIMPLE_ESCAPE, HEX, NO_WORDS, words, lineOffset, USE_WORDS, lastEscaped;
var init_usage_scan$1 = __esmMin((() => {
	QUOTE = 34;
	BACKSLASH = 92;
	SPACE = 32;
	COMMA = 44;
	COLON = 58;
	LBRACE = 123;
	RBRACE = 125;
	LBRACKET = 91;
	RBRACKET = 93;
	MINUS = 45;
	PLUS = 43;
	DOT = 46;
	ZERO = 48;
	NINE = 57;
	TRUE = Buffer.from("true");
	FALSE = Buffer.from("false");
	NULL = Buffer.from("null");
	SIMPLE_ESCAPE = /* @__PURE__ */ new Uint8Array(256);
	for (const c of "\"\\/bfnrt") SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
	HEX = /* @__PURE__ */ new Uint8Array(256);
	for (const c of "0123456789abcdefABCDEF") HEX[c.charCodeAt(0)] = 1;
	NO_WORDS = /* @__PURE__ */ new Int32Array(0);
	words = NO_WORDS;
	lineOffset = 0;
	USE_WORDS = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
	lastEscaped = false;
}));
// dist/codecs/claude/parse.js
/** The session's title: the user's, else the generated one, else a subagent's Task description. */
function effectiveTitle(s) {
	return s.titles.custom ?? s.titles.ai ?? s.meta?.description;
}
function emitSession(s, rec, start, emit) {
	const sessionId = currentSessionId(s);
	const recSession = str$1(rec.sessionId);
	const cwd = str$1(rec.cwd) ?? str$1(rec.project);
	const startedAt = extractTimestamp(rec.timestamp);
	const meta = s.meta;
	const subagent = s.path.subagent || meta !== void 0 || rec.isSidechain === true && str$1(rec.agentId) !== void 0;
	const forkedFrom = (meta?.parentAgentId === void 0 ? void 0 : meta.parentAgentId.startsWith("agent-") ? meta.parentAgentId : `agent-${meta.parentAgentId}`) ?? s.path.parentSessionId ?? (recSession !== void 0 && recSession !== sessionId ? recSession : void 0);
	const title = effectiveTitle(s);
	const event = {
		type: "session",
		agent: CODEC_ID$1,
		sessionId,
		offset: start,
		nativeId: sessionId,
		...cwd !== void 0 && { cwd },
		...startedAt !== void 0 && { startedAt },
		...title !== void 0 && { title },
		...forkedFrom !== void 0 && { forkedFrom },
		...str$1(rec.version) !== void 0 && { version: rec.version },
		...str$1(rec.gitBranch) !== void 0 && { gitBranch: rec.gitBranch },
		...subagent && { subagent: true },
		...meta?.agentType !== void 0 && { agentType: meta.agentType },
		...meta?.spawnDepth !== void 0 && { spawnDepth: meta.spawnDepth }
	};
	emit(event);
	s.session = event;
	s.sessionEmitted = true;
}
/**
* A `custom-title` / `ai-title` record. It names the session it titles; one naming another session (a
* `/rename` after `/resume` can write it into the wrong file, anthropics/claude-code#27202) is ignored. A
* resumed or forked copy keeps its origin's titles (they name the origin, which the copy's lines carry).
*/
function onTitle(s, rec, start, emit) {
	const custom = rec.type === "custom-title";
	const value = str$1(custom ? rec.customTitle : rec.aiTitle);
	if (value === void 0) return;
	const target = str$1(rec.sessionId);
	if (target !== void 0 && target !== currentSessionId(s) && target !== s.lineSessionId && target !== s.session?.forkedFrom) return;
	if (custom) s.titles.custom = value;
	else s.titles.ai = value;
	const session = s.session;
	const title = effectiveTitle(s);
	if (session === void 0 || title === session.title) return;
	const event = {
		...session,
		offset: start,
		...title !== void 0 && { title }
	};
	emit(event);
	s.session = event;
}
function opensSession(rec) {
	if (str$1(rec.cwd) !== void 0 || str$1(rec.project) !== void 0) return true;
	return str$1(rec.sessionId) !== void 0 && isRecord(rec.message);
}
/** Text of a tool result's content: strings as they are, text blocks joined, images as `[image]`. */
function extractToolOutput(content) {
	if (typeof content === "string" || content === void 0 || content === null) return content ?? null;
	if (!Array.isArray(content)) return content;
	const parts = [];
	for (const b of content) if (typeof b === "string") parts.push(b);
	else if (isContentBlock(b)) {
		if (b.type === "text" && typeof b.text === "string") parts.push(b.text);
		else if (b.type === "image") parts.push("[image]");
	}
	return parts.join("\n");
}
function userSubtype(rec, text) {
	if (rec.isMeta === true) return "meta";
	const t = text.trimStart();
	if (t.startsWith("<command-name>") || t.startsWith("<command-message>")) return "command";
	if (t.startsWith("<local-command-stdout>") || t.startsWith("<local-command-stderr>")) return "command_output";
}
function messageFields(rec) {
	const ts = extractTimestamp(rec.timestamp);
	const parent = str$1(rec.parentUuid) ?? str$1(rec.logicalParentUuid);
	return {
		...ts !== void 0 && { timestamp: ts },
		...parent !== void 0 && { parentId: parent }
	};
}
function onAssistant(s, rec, base, emit) {
	const msg = isRecord(rec.message) ? rec.message : {};
	const model = str$1(msg.model);
	const messageId = str$1(msg.id);
	const uuid = str$1(rec.uuid);
	const ts = extractTimestamp(rec.timestamp);
	const texts = [];
	const thinking = [];
	const calls = [];
	const content = msg.content;
	if (typeof content === "string") texts.push(content);
	else if (Array.isArray(content)) content.forEach((b, i) => {
		if (!isContentBlock(b)) return;
		if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
		else if (b.type === "thinking" && typeof b.thinking === "string") thinking.push(b.thinking);
		else if (b.type === "tool_use") {
			const id = str$1(b.id) ?? `${uuid ?? `@${base.offset}`}:${i}`;
			calls.push({
				id,
				name: str$1(b.name) ?? "unknown",
				input: b.input ?? null
			});
		}
	});
	if (texts.length > 0 || thinking.length > 0) {
		const subtype = model === "<synthetic>" ? "synthetic" : rec.isApiErrorMessage === true ? "api_error" : void 0;
		emit({
			type: "message",
			...base,
			role: "assistant",
			text: texts.join("\n"),
			...thinking.length > 0 && { thinking: thinking.join("\n") },
			...messageFields(rec),
			...model !== void 0 && { model },
			...(messageId ?? uuid) !== void 0 && { nativeId: messageId ?? uuid },
			...messageId !== void 0 && uuid !== void 0 && { lineId: uuid },
			...subtype !== void 0 && { subtype }
		});
	}
	for (const c of calls) {
		openCall(s, c.id, {
			name: c.name,
			from: uuid
		});
		emit({
			type: "tool_call",
			...base,
			callId: c.id,
			name: c.name,
			input: c.input,
			...ts !== void 0 && { timestamp: ts },
			...(messageId ?? uuid) !== void 0 && { messageId: messageId ?? uuid }
		});
	}
}
function emitToolResult(s, rec, base, emit, stated, fallbackId, output, isError, name) {
	if (stated !== void 0 && isAnsweredCall(s, stated)) return;
	const source = str$1(rec.sourceToolUseID);
	const match = takeCall(s, [stated, source], str$1(rec.sourceToolAssistantUUID), stated === void 0 && source === void 0);
	const ts = extractTimestamp(rec.timestamp);
	const toolName = match?.[1].name ?? name;
	emit({
		type: "tool_result",
		...base,
		callId: stated ?? match?.[0] ?? source ?? fallbackId,
		...toolName !== void 0 && { toolName },
		output,
		isError,
		...ts !== void 0 && { timestamp: ts }
	});
}
function onUser(s, rec, base, emit) {
	const msg = isRecord(rec.message) ? rec.message : {};
	const uuid = str$1(rec.uuid);
	const texts = [];
	const content = msg.content;
	const results = [];
	if (typeof content === "string") texts.push(content);
	else if (Array.isArray(content)) content.forEach((b, i) => {
		if (!isContentBlock(b)) return;
		if (b.type === "text" && typeof b.text === "string") texts.push(b.text);
		else if (b.type === "tool_result") results.push([i, b]);
	});
	if (texts.length > 0) {
		const text = texts.join("\n");
		const compact = rec.isCompactSummary === true;
		const role = compact ? "system" : "user";
		const subtype = compact ? "compact_summary" : userSubtype(rec, text);
		emit({
			type: "message",
			...base,
			role,
			text,
			...messageFields(rec),
			...uuid !== void 0 && { nativeId: uuid },
			...subtype !== void 0 && { subtype }
		});
	}
	for (const [i, b] of results) emitToolResult(s, rec, base, emit, str$1(b.tool_use_id), `${uuid ?? `@${base.offset}`}:${i}`, extractToolOutput(b.content ?? b.text), b.is_error === true);
}
function onSystem(rec, base, emit) {
	const subtype = str$1(rec.subtype) ?? "system";
	const content = typeof rec.content === "string" ? rec.content : "";
	if (content === "" && subtype !== "compact_boundary") return;
	const uuid = str$1(rec.uuid);
	emit({
		type: "message",
		...base,
		role: "system",
		text: content,
		...messageFields(rec),
		...uuid !== void 0 && { nativeId: uuid },
		subtype
	});
}
function onRecord(s, rec, base, emit) {
	switch (rec.type) {
		case "custom-title":
		case "ai-title": return onTitle(s, rec, base.offset, emit);
		case "assistant": return onAssistant(s, rec, base, emit);
		case "user": return onUser(s, rec, base, emit);
		case "system": return onSystem(rec, base, emit);
		case "summary":
			if (typeof rec.summary === "string") {
				const leaf = str$1(rec.leafUuid);
				emit({
					type: "message",
					...base,
					role: "system",
					text: rec.summary,
					...leaf !== void 0 && { parentId: leaf },
					subtype: "summary"
				});
			}
			return;
		case "tool_use": {
			const uuid = str$1(rec.uuid);
			const id = str$1(rec.id) ?? uuid ?? `@${base.offset}`;
			const name = str$1(rec.name) ?? "unknown";
			const ts = extractTimestamp(rec.timestamp);
			openCall(s, id, {
				name,
				from: uuid
			});
			emit({
				type: "tool_call",
				...base,
				callId: id,
				name,
				input: rec.input ?? null,
				...ts !== void 0 && { timestamp: ts }
			});
			return;
		}
		case "tool_result":
			emitToolResult(s, rec, base, emit, str$1(rec.tool_use_id), str$1(rec.uuid) ?? `@${base.offset}`, extractToolOutput(rec.output ?? rec.content), rec.is_error === true || rec.isError === true, str$1(rec.name));
			return;
		default: if (rec.type === void 0 && isRecord(rec.message) && rec.message.role === "assistant") onAssistant(s, rec, base, emit);
	}
}
function onUsage(s, u, emit) {
	const pending = s.pending;
	if (u.key !== void 0) {
		for (const p of pending) if (p.key === u.key) {
			if (isLargerUsage(u.event, p.event)) p.event = u.event;
			return;
		}
		if (s.seen.has(u.key)) return;
	}
	if (u.key === void 0) {
		for (const p of pending.splice(0)) {
			emit(p.event);
			s.seen.add(p.key);
		}
		emit(u.event);
		return;
	}
	pending.push({
		key: u.key,
		event: u.event
	});
	while (pending.length > 8) {
		const p = pending.shift();
		emit(p.event);
		s.seen.add(p.key);
	}
}
/** One parsed line (or the fields of one the fast scanner read) through the state. */
function onLine(s, rec, start, emit) {
	const lock = s.path.sessionId === void 0 && s.lineSessionId === void 0 ? str$1(rec.sessionId) : void 0;
	const sessionId = lock ?? currentSessionId(s);
	const usage = extractUsage(rec, sessionId, start);
	if (usage?.key !== void 0 && s.seenHashes !== void 0 && !s.seen.has(usage.key) && !s.pending.some((p) => p.key === usage.key) && s.seenHashes.has(hashId32(usage.key))) return RESTART;
	if (lock !== void 0) s.lineSessionId = lock;
	if (!s.sessionEmitted && opensSession(rec)) emitSession(s, rec, start, emit);
	if (s.filter === void 0) onRecord(s, rec, {
		agent: CODEC_ID$1,
		sessionId,
		offset: start
	}, emit);
	else if (rec.type === "custom-title" || rec.type === "ai-title") onTitle(s, rec, start, emit);
	if (usage !== void 0) onUsage(s, usage, emit);
}
/** A Claude Code LineCore; `claudeCore` is the one without a sidecar. */
function createClaudeCore(options = {}) {
	const meta = options.meta;
	const fast = options.fastScan ?? true;
	return {
		init: (ctx) => initClaudeState(ctx, meta),
		restore: (snapshot, ctx) => restoreClaudeState(snapshot, ctx, meta),
		snapshot: snapshotClaudeState,
		line(s, line, start, emit) {
			const f = s.filter;
			if (s.sessionEmitted && f !== void 0 && !(f.titles && line.indexOf(TITLE_MARKER) !== -1)) {
				if (!f.usage || line.indexOf(USAGE_MARKER) === -1) {
					s.info.filteredLines++;
					return;
				}
				if (fast) {
					const fields = scanFields(line, USAGE_FIELDS);
					if (fields !== void 0) {
						s.scanned.fast++;
						return onLine(s, fields, start, emit);
					}
					s.scanned.fallback++;
				}
			}
			return onLine(s, parseJsonObject(line, start, CODEC_ID$1, s.file), start, emit);
		},
		end(s, emit) {
			if (s.pending.length === 0) return {};
			for (const p of s.pending) emit(p.event);
			return { usage: s.pending.length };
		},
		markers(s) {
			const f = s.filter;
			if (!s.sessionEmitted || f === void 0) return void 0;
			return f.usage ? f.titles ? USAGE_AND_TITLE : USAGE_ONLY : f.titles ? TITLE_ONLY : NO_MARKERS;
		}
	};
}
var USAGE_FIELDS, USAGE_AND_TITLE, USAGE_ONLY, TITLE_ONLY, NO_MARKERS, claudeCore;
var init_parse$1 = __esmMin((async () => {
	init_core();
	await init_ids$1();
	init_paths$2();
	init_schema$1();
	await init_state();
	init_usage();
	init_usage_scan$1();
	USAGE_FIELDS = compileProjection(USAGE_LINE_FIELDS);
	USAGE_AND_TITLE = [USAGE_MARKER, TITLE_MARKER];
	USAGE_ONLY = [USAGE_MARKER];
	TITLE_ONLY = [TITLE_MARKER];
	NO_MARKERS = [];
	claudeCore = createClaudeCore();
}));
// dist/codecs/claude/index.js
/** `read()`: a subagent transcript's sidecar is read first and handed to the pure core (see meta.ts). */
async function* readClaude(file, options) {
	const metaPath = getSubagentMetaPath(file);
	const meta = metaPath === void 0 ? void 0 : await readSubagentMeta(metaPath);
	yield* meta === void 0 ? readWithoutMeta(file, options) : createJsonlRead(PARSER, createClaudeCore({ meta }))(file, options);
}
var PARSER, readWithoutMeta, claude;
var init_claude = __esmMin((async () => {
	init_read_jsonl();
	init_meta();
	await init_parse$1();
	init_paths$2();
	init_usage();
	init_usage_scan$1();
	await init_state();
	init_schema$1();
	PARSER = {
		id: CODEC_ID$1,
		parserVersion: 3
	};
	readWithoutMeta = createJsonlRead(PARSER, claudeCore);
	claude = {
		id: CODEC_ID$1,
		aliases: ["claude-code", "claudecode"],
		displayName: "Claude Code",
		parserVersion: 3,
		capabilities: {
			incremental: true,
			persistence: "jsonl",
			eventsPrecedeMtime: true
		},
		defaultRoots: getClaudeRoots,
		discover: discoverClaudeFiles,
		locate: locateClaudeFile,
		getParseDependencies(file) {
			const meta = getSubagentMetaPath(file);
			return meta === void 0 ? [] : [meta];
		},
		lineCore: claudeCore,
		lineCoreFor(file) {
			const metaPath = getSubagentMetaPath(file);
			const meta = metaPath === void 0 ? void 0 : readSubagentMetaSync(metaPath);
			return meta === void 0 ? claudeCore : createClaudeCore({ meta });
		},
		read: readClaude,
		resumeCommand(nativeId, _file) {
			return [
				"claude",
				"--resume",
				nativeId
			];
		}
	};
}));
// dist/codecs/codex/schema.js
/** The value as a plain object, or undefined. */
function asObject(v) {
	return v !== null && typeof v === "object" && !Array.isArray(v) ? v : void 0;
}
/** A non-empty string, or undefined. */
function asString(v) {
	return typeof v === "string" && v.length > 0 ? v : void 0;
}
/** A finite number, or undefined. */
function asNumber(v) {
	return typeof v === "number" && Number.isFinite(v) ? v : void 0;
}
/** The ISO timestamp as written when it parses as a date, else undefined (sanitized fixtures write text). */
function asTimestamp(v) {
	return typeof v === "string" && v.length >= 10 && !Number.isNaN(Date.parse(v)) ? v : void 0;
}
/** The parent thread of a subagent `source` (`{subagent: {thread_spawn: {parent_thread_id}}}`). */
function getSpawnParent(source) {
	return asString(asObject(asObject(asObject(source)?.subagent)?.thread_spawn)?.parent_thread_id);
}
/** True for a subagent `source` (`{subagent: …}` or the string `subagent`). */
function isSubagentSource(source) {
	return source === "subagent" || asObject(source)?.subagent !== void 0;
}
var RECORD, ITEM, EVENT, LEGACY_ITEM_TYPES, INJECTED_USER_PREFIXES;
var init_schema = __esmMin((() => {
	RECORD = {
		sessionMeta: "session_meta",
		turnContext: "turn_context",
		responseItem: "response_item",
		eventMsg: "event_msg",
		compacted: "compacted",
		tokenUsageRecord: "token_usage_record"
	};
	ITEM = {
		message: "message",
		reasoning: "reasoning",
		functionCall: "function_call",
		functionCallOutput: "function_call_output",
		customToolCall: "custom_tool_call",
		customToolCallOutput: "custom_tool_call_output",
		localShellCall: "local_shell_call",
		webSearchCall: "web_search_call",
		toolSearchCall: "tool_search_call",
		toolSearchOutput: "tool_search_output"
	};
	EVENT = {
		tokenCount: "token_count",
		userMessage: "user_message",
		agentMessage: "agent_message"
	};
	LEGACY_ITEM_TYPES = new Set(Object.values(ITEM));
	INJECTED_USER_PREFIXES = [
		["<environment_context>", "environment_context"],
		["<user_instructions>", "user_instructions"],
		["# AGENTS.md instructions", "user_instructions"],
		["<INSTRUCTIONS>", "user_instructions"],
		["<turn_aborted>", "turn_aborted"],
		["<subagent_notification>", "subagent_notification"]
	];
}));
// dist/codecs/codex/items.js
/**
* `developer`/`system` → system; `user` text that starts with an injected-context tag (environment_context,
* AGENTS.md / user_instructions, …) → system with that subtype; an `event_msg` user_message whose `kind` is
* not `plain` (older builds) → system with subtype = kind.
*/
function classifyMessage(role, text, kind) {
	if (role === "assistant") return { role: "assistant" };
	if (role === "developer" || role === "system") return {
		role: "system",
		subtype: role
	};
	if (role !== "user") return {
		role: "system",
		subtype: role
	};
	if (kind !== void 0 && kind !== "plain") return {
		role: "system",
		subtype: kind
	};
	const head = text.trimStart();
	for (const [prefix, subtype] of INJECTED_USER_PREFIXES) if (head.startsWith(prefix)) return {
		role: "system",
		subtype
	};
	return { role: "user" };
}
/** Text of a `message` content array (`input_text` / `output_text` parts), joined by newlines. */
function contentText(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const parts = [];
	for (const c of content) {
		const o = asObject(c);
		if (o !== void 0 && typeof o.text === "string" && (o.type === void 0 || String(o.type).endsWith("text"))) parts.push(o.text);
	}
	return parts.join("\n");
}
/** Reasoning summary (and raw reasoning content, when recorded) of a `reasoning` item. */
function reasoningText(p) {
	const parts = [];
	for (const list of [p.summary, p.content]) {
		if (!Array.isArray(list)) continue;
		for (const c of list) {
			const o = asObject(c);
			if (o !== void 0 && typeof o.text === "string" && o.text.length > 0) parts.push(o.text);
		}
	}
	return parts.join("\n");
}
function parseArguments(v) {
	if (typeof v !== "string") return v ?? null;
	try {
		return JSON.parse(v);
	} catch {
		return v;
	}
}
/** The tool call a response item describes, or undefined when it is not a call. */
function extractCall(p) {
	const callId = asString(p.call_id) ?? asString(p.id) ?? "";
	switch (p.type) {
		case ITEM.functionCall: return {
			callId,
			name: asString(p.name) ?? "function",
			input: parseArguments(p.arguments)
		};
		case ITEM.customToolCall: return {
			callId,
			name: asString(p.name) ?? "custom_tool",
			input: p.input ?? null
		};
		case ITEM.localShellCall: return {
			callId,
			name: "local_shell",
			input: p.action ?? null
		};
		case ITEM.webSearchCall: return {
			callId,
			name: "web_search",
			input: p.action ?? null
		};
		case ITEM.toolSearchCall: return {
			callId,
			name: "tool_search",
			input: p.arguments ?? null
		};
		default: return;
	}
}
/**
* Shell outputs: older builds wrote `{"output": "...", "metadata": {"exit_code": n}}` as a JSON string, newer
* ones plain text with an `Exit code: n` / `Process exited with code n` line. A non-zero exit is an error.
*/
function normalizeText(v) {
	if (v.startsWith("{\"output\":")) try {
		const o = asObject(JSON.parse(v));
		const meta = asObject(o?.metadata);
		if (o !== void 0 && typeof o.output === "string") return {
			output: o.output,
			isError: typeof meta?.exit_code === "number" && meta.exit_code !== 0
		};
	} catch {}
	const m = EXIT_CODE.exec(v.slice(0, 512));
	return {
		output: v,
		isError: m !== null && m[1] !== "0"
	};
}
/**
* Tool output as text where Codex wrote text: a plain string; `{content, success}` (older builds) → content;
* an array of content parts or a single `{type:"input_text", text}` part → their text. Anything else is kept
* as recorded. `success: false` marks an error.
*/
function normalizeOutput(v) {
	if (typeof v === "string") return normalizeText(v);
	if (Array.isArray(v)) {
		const text = contentText(v);
		return {
			output: text.length > 0 || v.length === 0 ? text : v,
			isError: false
		};
	}
	const o = asObject(v);
	if (o === void 0) return {
		output: v ?? null,
		isError: false
	};
	const isError = o.success === false;
	if (typeof o.content === "string") return {
		output: o.content,
		isError
	};
	if (Array.isArray(o.content)) return {
		output: contentText(o.content),
		isError
	};
	if (typeof o.text === "string") return {
		output: o.text,
		isError
	};
	return {
		output: o,
		isError
	};
}
/** The tool output a response item carries, or undefined when it is not an output. */
function extractOutput(p) {
	const callId = asString(p.call_id) ?? "";
	switch (p.type) {
		case ITEM.functionCallOutput:
		case ITEM.customToolCallOutput: return {
			callId,
			...normalizeOutput(p.output)
		};
		case ITEM.toolSearchOutput: return {
			callId,
			output: p.tools ?? null,
			isError: p.status === "failed"
		};
		default: return;
	}
}
var EXIT_CODE;
var init_items = __esmMin((() => {
	init_schema();
	EXIT_CODE = /^(?:Exit code: |Process exited with code )(-?\d+)/m;
}));
// dist/codecs/codex/paths.js
/**
* Where Codex keeps rollouts: `$CODEX_HOME` (comma-separated list accepted, like ccusage) else `~/.codex`;
* live threads under `sessions/YYYY/MM/DD/rollout-<local time>-<thread uuid>.jsonl`, archived ones under
* `archived_sessions/` (flat in current builds; walked recursively to be safe). The day directory and the
* time in the name are LOCAL time (`OffsetDateTime::now_local()` in `codex-rs/core/src/rollout/recorder.rs`),
* so they are never compared with the UTC timestamps inside the file.
*/
/** Every Codex home to scan, honouring `$CODEX_HOME` (comma-separated). */
function getCodexRoots(env = process.env) {
	const explicit = env.CODEX_HOME;
	if (explicit !== void 0 && explicit.trim() !== "") return explicit.split(",").map((s) => s.trim()).filter(Boolean);
	return [join(env.HOME || homedir(), ".codex")];
}
/** `rollout-2025-05-07T17-24-21-<uuid>.jsonl` → its local timestamp text and thread id; undefined otherwise. */
function parseRolloutFileName(name) {
	const m = ROLLOUT_NAME.exec(name);
	return m ? {
		localTime: m[1],
		id: m[2].toLowerCase()
	} : void 0;
}
/** True for a file name Codex gives a rollout (`rollout-*.jsonl`). */
function isRolloutFileName(name) {
	return name.startsWith("rollout-") && name.endsWith(".jsonl");
}
/**
* Rollout files under `dir`, recursively, in name order (a missing directory yields nothing). A plain
* generator: an async one would cost a microtask per level per file (~10 ms over 780 rollouts in one profile).
*/
function* walkRollouts(dir) {
	let entries;
	try {
		entries = readdirSync(dir, { withFileTypes: true });
	} catch {
		return;
	}
	entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
	for (const e of entries) {
		const p = join(dir, e.name);
		if (e.isDirectory()) yield* walkRollouts(p);
		else if (e.isFile() && isRolloutFileName(e.name)) yield p;
	}
}
/**
* Day directories (`sessions/YYYY/MM/DD`) a UUIDv7 thread id can live in: the id's creation time ±1 day,
* since the directory is named in local time. Empty for ids that are not UUIDv7 (older random v4 ids).
*/
function candidateDayDirs(root, id) {
	if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/i.test(id)) return [];
	const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
	const out = [];
	for (const d of [
		-1,
		0,
		1
	]) {
		const t = new Date(ms + d * 864e5);
		const y = String(t.getUTCFullYear());
		const m = String(t.getUTCMonth() + 1).padStart(2, "0");
		const day = String(t.getUTCDate()).padStart(2, "0");
		out.push(join(root, SESSIONS_SUBDIR, y, m, day));
	}
	return out;
}
var SESSIONS_SUBDIR, ARCHIVED_SESSIONS_SUBDIR, ROLLOUT_NAME;
var init_paths$1 = __esmMin((() => {
	SESSIONS_SUBDIR = "sessions";
	ARCHIVED_SESSIONS_SUBDIR = "archived_sessions";
	ROLLOUT_NAME = /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$/;
}));
// dist/codecs/codex/prefilter.js
/**
* True when the line may change usage (session_meta, turn_context, token_usage_record, event_msg
* token_count), false when it cannot; lines whose head has another shape are decided by the markers.
*/
function mayHoldUsage(line) {
	if (line[0] !== 123) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
	const head = line.subarray(0, Math.min(line.length, HEAD_BYTES$1));
	const i = head.indexOf(TYPE_KEY);
	if (i < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
	for (let j = 1; j < i; j++) {
		const c = head[j];
		if (c === 123 || c === 91) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
	}
	const start = i + TYPE_KEY.length;
	const end = head.indexOf(34, start);
	if (end < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
	const type = head.toString("latin1", start, end);
	if (USAGE_RECORDS.has(type)) return true;
	if (type !== RECORD.eventMsg) return false;
	if (head.indexOf(PAYLOAD_TYPE, end) !== end) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
	const pStart = end + PAYLOAD_TYPE.length;
	const pEnd = head.indexOf(34, pStart);
	if (pEnd < 0) return hasAnyMarker(line, CODEX_USAGE_MARKERS);
	return head.toString("latin1", pStart, pEnd) === EVENT.tokenCount;
}
var HEAD_BYTES$1, TYPE_KEY, PAYLOAD_TYPE, USAGE_RECORDS, CODEX_USAGE_MARKERS;
var init_prefilter = __esmMin((() => {
	init_core();
	init_schema();
	HEAD_BYTES$1 = 256;
	TYPE_KEY = Buffer.from("\"type\":\"");
	PAYLOAD_TYPE = Buffer.from("\",\"payload\":{\"type\":\"");
	USAGE_RECORDS = /* @__PURE__ */ new Set([
		RECORD.sessionMeta,
		RECORD.turnContext,
		RECORD.tokenUsageRecord
	]);
	CODEX_USAGE_MARKERS = [
		"token_",
		"turn_context",
		"session_meta"
	].map((m) => Buffer.from(m));
}));
// dist/codecs/codex/tokens.js
function n(v) {
	const x = asNumber(v);
	return x !== void 0 && x > 0 ? x : 0;
}
/** Read a raw `TokenUsage` object; undefined when the value is not an object with at least one count. */
function readTok(v) {
	const o = asObject(v);
	if (o === void 0) return void 0;
	if (o.input_tokens === void 0 && o.output_tokens === void 0 && o.total_tokens === void 0) return void 0;
	const input = n(o.input_tokens);
	const output = n(o.output_tokens);
	const total = n(o.total_tokens);
	return {
		input,
		cached: n(o.cached_input_tokens ?? o.cache_read_input_tokens),
		cacheWrite: n(o.cache_write_input_tokens),
		output,
		reasoning: n(o.reasoning_output_tokens),
		total: total > 0 ? total : input + output
	};
}
/** a − b, field by field (callers check `anyDecrease` first). */
function subTok(a, b) {
	return {
		input: a.input - b.input,
		cached: a.cached - b.cached,
		cacheWrite: a.cacheWrite - b.cacheWrite,
		output: a.output - b.output,
		reasoning: a.reasoning - b.reasoning,
		total: a.total - b.total
	};
}
/** True when any counter of `cur` is below `prev`: the cumulative counter was reset. */
function anyDecrease(cur, prev) {
	for (const f of FIELDS) if (cur[f] < prev[f]) return true;
	return false;
}
/** True when no counter of `a` exceeds `b`. */
function fitsWithin(a, b) {
	for (const f of FIELDS) if (a[f] > b[f]) return false;
	return true;
}
function isZeroTok(t) {
	for (const f of FIELDS) if (t[f] !== 0) return false;
	return true;
}
function eqTok(a, b) {
	for (const f of FIELDS) if (a[f] !== b[f]) return false;
	return true;
}
/** `input/cached/cacheWrite/output/reasoning/total`, used in dedup keys. */
function tokKey(t) {
	return `${t.input}/${t.cached}/${t.cacheWrite}/${t.output}/${t.reasoning}/${t.total}`;
}
/**
* Split a Codex `TokenUsage` into our fields: inputTokens = input − cached − cacheWrite (cached and cache
* writes are clamped to the input they are part of, so a malformed row can never go negative);
* outputTokens = output (reasoning included, never added again); reasoningTokens = reasoning.
*/
function toUsageFields(t) {
	const cached = Math.min(t.cached, t.input);
	const cacheWrite = Math.min(t.cacheWrite, t.input - cached);
	return {
		inputTokens: t.input - cached - cacheWrite,
		outputTokens: t.output,
		reasoningTokens: t.reasoning,
		cacheReadTokens: cached,
		cacheWriteTokens: cacheWrite,
		cacheWrite1hTokens: 0
	};
}
/** True when two usage-field sets count the same tokens. */
function sameUsage(a, b) {
	return a.inputTokens === b.inputTokens && a.outputTokens === b.outputTokens && a.reasoningTokens === b.reasoningTokens && a.cacheReadTokens === b.cacheReadTokens && a.cacheWriteTokens === b.cacheWriteTokens;
}
var FIELDS;
var init_tokens = __esmMin((() => {
	init_schema();
	FIELDS = [
		"input",
		"cached",
		"cacheWrite",
		"output",
		"reasoning",
		"total"
	];
}));
// dist/codecs/codex/parse.js
/**
* The engine of the `codex` codec: a pure, synchronous LineCore over rollout lines (see README.md for the
* format and every rule below, with its reason).
*
* - The first line owns the file: a `session_meta` there gives the session id, start time, fork/subagent
*   parent and the ordinal where the file's own history starts. Later `session_meta` lines are copies of a
*   parent's header (forks and subagents replay the parent's history after their own header).
* - A line is inherited (copied parent history) when its `ordinal` is below the owner's history start, or,
*   in a fork/subagent, when it is timestamped before the owner's start. Inherited lines update the model and
*   the token baseline but yield nothing.
* - Usage: `token_usage_record` rows (one per response) win; otherwise the delta of `total_token_usage`
*   between `token_count` events. A token_count delta waits (pending) until the next usage line, because in
*   Codex >= 0.153 the same response's `token_usage_record` may follow it: a matching record replaces it.
* - Cursor state is one plain object; seen response ids are kept exactly during a read and as 32-bit hashes
*   across reads (a hash hit in restored state returns RESTART).
*/
function fileIdOf(file) {
	const name = basename(file);
	return parseRolloutFileName(name)?.id ?? name.replace(/\.jsonl$/i, "");
}
function isUsageOnly(ctx) {
	for (const k of ctx.options.kinds) if (k !== "usage" && k !== "session") return false;
	return true;
}
function invalidState(detail) {
	return new SessionfoldError("CURSOR_INVALID", `Invalid codex cursor state: ${detail}`, { agent: CODEC_ID });
}
function init(ctx) {
	const fileId = fileIdOf(ctx.file);
	return {
		file: ctx.file,
		fileId,
		info: ctx.options.info,
		usageOnly: isUsageOnly(ctx),
		seenExact: /* @__PURE__ */ new Set(),
		restored: false,
		decided: false,
		sessionId: fileId,
		forked: false,
		bornAt: null,
		historyStart: null,
		region: null,
		epoch: 0,
		totals: null,
		model: null,
		metaProvider: null,
		ctxProvider: null,
		lastTs: null,
		recordsSeen: false,
		pending: null,
		seenHash: /* @__PURE__ */ new Set(),
		openCalls: /* @__PURE__ */ new Map(),
		recent: []
	};
}
function tokFromSnapshot(v) {
	const o = asObject(v);
	if (o === void 0) return null;
	const t = {
		input: 0,
		cached: 0,
		cacheWrite: 0,
		output: 0,
		reasoning: 0,
		total: 0
	};
	for (const k of Object.keys(t)) {
		const x = asNumber(o[k]);
		if (x === void 0) throw invalidState(`totals.${k} is not a number`);
		t[k] = x;
	}
	return t;
}
function restore(snapshot, ctx) {
	const o = asObject(snapshot);
	if (o === void 0 || o.v !== STATE_VERSION) throw invalidState(`expected {v:${STATE_VERSION}}, got ${JSON.stringify(snapshot)?.slice(0, 100)}`);
	if (typeof o.sessionId !== "string" || !Array.isArray(o.seen) || !Array.isArray(o.openCalls) || !Array.isArray(o.recent)) throw invalidState("missing fields");
	const s = init(ctx);
	s.restored = true;
	s.decided = o.decided === true;
	s.sessionId = o.sessionId;
	s.forked = o.forked === true;
	s.bornAt = asNumber(o.bornAt) ?? null;
	s.historyStart = asNumber(o.historyStart) ?? null;
	s.region = asString(o.region) ?? null;
	s.epoch = asNumber(o.epoch) ?? 0;
	s.totals = tokFromSnapshot(o.totals);
	s.model = asString(o.model) ?? null;
	s.metaProvider = asString(o.metaProvider) ?? null;
	s.ctxProvider = asString(o.ctxProvider) ?? null;
	s.lastTs = asString(o.lastTs) ?? null;
	s.recordsSeen = o.recordsSeen === true;
	s.pending = asObject(o.pending) !== void 0 ? o.pending : null;
	s.seenHash = new Set(o.seen.filter((h) => typeof h === "number"));
	s.openCalls = new Map(o.openCalls.filter((e) => Array.isArray(e) && typeof e[0] === "string" && typeof e[1] === "string"));
	s.recent = o.recent.filter((e) => Array.isArray(e) && typeof e[0] === "number" && (e[1] === 0 || e[1] === 1));
	return s;
}
function snapshot(s) {
	return {
		v: STATE_VERSION,
		decided: s.decided,
		sessionId: s.sessionId,
		forked: s.forked,
		bornAt: s.bornAt,
		historyStart: s.historyStart,
		region: s.region,
		epoch: s.epoch,
		totals: s.totals,
		model: s.model,
		metaProvider: s.metaProvider,
		ctxProvider: s.ctxProvider,
		lastTs: s.lastTs,
		recordsSeen: s.recordsSeen,
		pending: s.pending,
		seen: [...s.seenHash],
		openCalls: [...s.openCalls],
		recent: s.recent
	};
}
/** Take the owner's header: the session event and everything the inherited-history rules need. */
function takeOwner(s, p, ts, start, emit) {
	const id = asString(p.id) ?? asString(p.session_id) ?? s.fileId;
	const forkedFrom = asString(p.forked_from_id) ?? asString(p.parent_thread_id) ?? getSpawnParent(p.source);
	const subagent = isSubagentSource(p.source);
	const base = asObject(p.history_base);
	const startedAt = asTimestamp(p.timestamp) ?? ts;
	s.sessionId = id;
	s.region = id;
	s.forked = forkedFrom !== void 0 || subagent || base !== void 0;
	s.bornAt = startedAt !== void 0 ? Date.parse(startedAt) : null;
	s.historyStart = asNumber(p.subagent_history_start_ordinal) ?? asNumber(base?.end_ordinal_exclusive) ?? null;
	s.metaProvider = asString(p.model_provider) ?? null;
	const cwd = asString(p.cwd);
	const version = asString(p.cli_version);
	const gitBranch = asString(asObject(p.git)?.branch);
	emit({
		type: "session",
		agent: CODEC_ID,
		sessionId: id,
		offset: start,
		nativeId: id,
		...cwd !== void 0 && { cwd },
		...startedAt !== void 0 && { startedAt },
		...forkedFrom !== void 0 && { forkedFrom },
		...version !== void 0 && { version },
		...gitBranch !== void 0 && { gitBranch },
		...subagent && { subagent: true },
		...s.metaProvider !== null && { provider: s.metaProvider }
	});
}
function isInherited(s, rec, ts) {
	if (s.historyStart !== null) {
		const ordinal = asNumber(rec.ordinal);
		if (ordinal !== void 0 && ordinal < s.historyStart) return true;
	}
	return s.forked && s.bornAt !== null && ts !== void 0 && Date.parse(ts) < s.bornAt;
}
function usageEvent(s, t, ts, start, singleRequest, dedupKey, messageId) {
	const provider = s.metaProvider ?? s.ctxProvider;
	return {
		type: "usage",
		agent: CODEC_ID,
		sessionId: s.sessionId,
		offset: start,
		model: s.model ?? "gpt-5",
		...s.model === null && { modelFallback: true },
		...provider !== null && { provider },
		timestamp: ts,
		...toUsageFields(t),
		singleRequest,
		dedupKey,
		...messageId !== void 0 && { messageId }
	};
}
/** Dedup-key prefix of cumulative counters: the thread whose counter it is (or the line time without one). */
function regionKey(s, ts) {
	const r = s.region ?? `@${ts ?? s.lastTs ?? ""}`;
	return s.epoch > 0 ? `${r}#${s.epoch}` : r;
}
function onTokenCount(s, p, ts, inherited, start, emit) {
	const info = asObject(p.info);
	if (info === void 0) return;
	const total = readTok(info.total_token_usage);
	const last = readTok(info.last_token_usage);
	const when = ts ?? s.lastTs ?? EPOCH_TS;
	if (total === void 0) {
		if (last === void 0 || inherited || s.recordsSeen || isZeroTok(last)) return;
		queue(s, usageEvent(s, last, when, start, true, `codex:${regionKey(s, ts)}:last:${when}:${tokKey(last)}`), emit);
		return;
	}
	const prev = s.totals;
	let delta;
	if (prev !== null && !anyDecrease(total, prev)) delta = subTok(total, prev);
	else {
		if (prev !== null) s.epoch++;
		delta = last !== void 0 && fitsWithin(last, total) ? last : total;
	}
	s.totals = total;
	if (inherited || s.recordsSeen || isZeroTok(delta)) return;
	const single = last !== void 0 && eqTok(delta, last);
	queue(s, usageEvent(s, delta, when, start, single, `codex:${regionKey(s, ts)}:${tokKey(total)}`), emit);
}
/** Hold a token_count usage until the next usage line: a token_usage_record for the same response replaces it. */
function queue(s, e, emit) {
	if (s.pending !== null) emit(s.pending);
	s.pending = e;
}
function onUsageRecord(s, p, ts, inherited, start, emit) {
	const usage = readTok(p.usage);
	if (usage === void 0) return;
	const rid = asString(p.response_id);
	if (rid !== void 0) {
		if (s.seenExact.has(rid)) return;
		const h = hashId32(rid);
		if (s.restored && s.seenHash.has(h)) return RESTART;
		s.seenExact.add(rid);
		s.seenHash.add(h);
	}
	const thread = asString(p.thread_id);
	if (inherited || thread !== void 0 && s.region !== null && thread !== s.sessionId && thread !== s.region || isZeroTok(usage)) return;
	s.recordsSeen = true;
	const when = ts ?? s.lastTs ?? EPOCH_TS;
	const e = usageEvent(s, usage, when, start, true, rid !== void 0 ? `codex:resp:${rid}` : `codex:${regionKey(s, ts)}:rec:${when}:${tokKey(usage)}`, rid);
	if (s.pending !== null) {
		if (!sameUsage(s.pending, e)) emit(s.pending);
		s.pending = null;
	}
	emit(e);
}
/** Emit a message unless its twin from the other source (event_msg vs response_item) was just emitted. */
function emitMessage(s, src, role, text, extra, start, emit) {
	const h = hashId32(`${role}\u0000${text}`);
	const twin = s.recent.findIndex(([rh, rs]) => rh === h && rs !== src);
	if (twin !== -1) {
		s.recent.splice(twin, 1);
		return;
	}
	s.recent.push([h, src]);
	if (s.recent.length > 16) s.recent.shift();
	emit({
		type: "message",
		agent: CODEC_ID,
		sessionId: s.sessionId,
		offset: start,
		role,
		text,
		...extra
	});
}
function onResponseItem(s, p, ts, start, emit) {
	const base = {
		agent: CODEC_ID,
		sessionId: s.sessionId,
		offset: start
	};
	const at = ts !== void 0 ? { timestamp: ts } : {};
	const nativeId = asString(p.id);
	if (p.type === ITEM.message) {
		const text = contentText(p.content);
		if (text.length === 0) return;
		const c = classifyMessage(asString(p.role) ?? "user", text);
		const model = c.role === "assistant" && s.model !== null ? { model: s.model } : {};
		emitMessage(s, 1, c.role, text, {
			...at,
			...model,
			...nativeId !== void 0 && { nativeId },
			...c.subtype !== void 0 && { subtype: c.subtype }
		}, start, emit);
		return;
	}
	if (p.type === ITEM.reasoning) {
		const thinking = reasoningText(p);
		if (thinking.length === 0) return;
		emit({
			type: "message",
			...base,
			role: "assistant",
			text: "",
			thinking,
			...at,
			...s.model !== null && { model: s.model },
			...nativeId !== void 0 && { nativeId }
		});
		return;
	}
	const call = extractCall(p);
	if (call !== void 0) {
		if (call.callId.length > 0) {
			s.openCalls.delete(call.callId);
			s.openCalls.set(call.callId, call.name);
			if (s.openCalls.size > 256) s.openCalls.delete(s.openCalls.keys().next().value);
		}
		emit({
			type: "tool_call",
			...base,
			callId: call.callId,
			name: call.name,
			input: call.input,
			...at,
			...nativeId !== void 0 && { messageId: nativeId }
		});
		return;
	}
	const out = extractOutput(p);
	if (out !== void 0) {
		const toolName = s.openCalls.get(out.callId);
		s.openCalls.delete(out.callId);
		emit({
			type: "tool_result",
			...base,
			callId: out.callId,
			...toolName !== void 0 && { toolName },
			output: out.output,
			isError: out.isError,
			...at
		});
	}
}
function onEventMsg(s, p, ts, start, emit) {
	if (p.type !== EVENT.userMessage && p.type !== EVENT.agentMessage) return;
	const text = typeof p.message === "string" ? p.message : "";
	if (text.length === 0) return;
	const c = p.type === EVENT.agentMessage ? classifyMessage("assistant", text) : classifyMessage("user", text, asString(p.kind));
	const model = c.role === "assistant" && s.model !== null ? { model: s.model } : {};
	emitMessage(s, 0, c.role, text, {
		...ts !== void 0 && { timestamp: ts },
		...model,
		...c.subtype !== void 0 && { subtype: c.subtype }
	}, start, emit);
}
function line(s, buf, start, emit) {
	if (s.usageOnly && s.decided && !mayHoldUsage(buf)) {
		s.info.filteredLines++;
		return;
	}
	const rec = parseJsonObject(buf, start, CODEC_ID, s.file);
	let type = asString(rec.type);
	let payload = asObject(rec.payload);
	if (payload === void 0 && type !== void 0 && LEGACY_ITEM_TYPES.has(type)) {
		payload = rec;
		type = RECORD.responseItem;
	}
	const ts = asTimestamp(rec.timestamp);
	if (!s.decided) {
		s.decided = true;
		if (type === RECORD.sessionMeta && payload !== void 0) {
			if (ts !== void 0) s.lastTs = ts;
			takeOwner(s, payload, ts, start, emit);
			return;
		}
		if (type === void 0 && asString(rec.id) !== void 0) {
			takeOwner(s, rec, ts, start, emit);
			return;
		}
		emit({
			type: "session",
			agent: CODEC_ID,
			sessionId: s.sessionId,
			offset: start,
			nativeId: s.sessionId,
			...ts !== void 0 && { startedAt: ts }
		});
	}
	if (payload === void 0) return;
	const inherited = isInherited(s, rec, ts);
	switch (type) {
		case RECORD.sessionMeta: {
			const id = asString(payload.id) ?? asString(payload.session_id);
			if (id === void 0 || id !== s.region) {
				s.region = id ?? null;
				s.epoch = 0;
				s.totals = null;
			}
			if (ts !== void 0) s.lastTs = ts;
			return;
		}
		case RECORD.turnContext:
			s.model = asString(payload.model) ?? s.model;
			s.ctxProvider = asString(payload.model_provider) ?? s.ctxProvider;
			if (ts !== void 0) s.lastTs = ts;
			return;
		case RECORD.tokenUsageRecord: {
			const r = onUsageRecord(s, payload, ts, inherited, start, emit);
			if (ts !== void 0) s.lastTs = ts;
			return r;
		}
		case RECORD.eventMsg:
			if (payload.type === EVENT.tokenCount) {
				onTokenCount(s, payload, ts, inherited, start, emit);
				if (ts !== void 0) s.lastTs = ts;
			} else if (!s.usageOnly && !inherited) onEventMsg(s, payload, ts, start, emit);
			return;
		case RECORD.responseItem:
			if (!s.usageOnly && !inherited) onResponseItem(s, payload, ts, start, emit);
			return;
		case RECORD.compacted: {
			const text = asString(payload.message);
			if (!s.usageOnly && !inherited && text !== void 0) emit({
				type: "message",
				agent: CODEC_ID,
				sessionId: s.sessionId,
				offset: start,
				role: "system",
				text,
				subtype: "compaction",
				...ts !== void 0 && { timestamp: ts }
			});
			return;
		}
		default: return;
	}
}
function end(s, emit) {
	if (s.pending === null) return {};
	emit(s.pending);
	return { usage: 1 };
}
var CODEC_ID, EPOCH_TS, STATE_VERSION, codexCore;
var init_parse = __esmMin((async () => {
	init_core();
	await init_ids$1();
	init_errors();
	init_items();
	init_paths$1();
	init_prefilter();
	init_schema();
	init_tokens();
	CODEC_ID = "codex";
	EPOCH_TS = "1970-01-01T00:00:00.000Z";
	STATE_VERSION = 1;
	codexCore = {
		init,
		restore,
		snapshot,
		line,
		end
	};
}));
// dist/codecs/codex/index.js
/**
* `codex`: OpenAI Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` and
* `archived_sessions/`). A JSONL codec: the pure line engine is in parse.ts, `read()` with byte-exact resume
* comes from `createJsonlRead`. Format, token semantics and fallbacks: README.md.
*/
function sessionFile(path, root) {
	const id = parseRolloutFileName(basename(path))?.id;
	return {
		agent: CODEC_ID,
		path,
		root,
		...id !== void 0 && { sessionId: id }
	};
}
/**
* Every rollout under each root: `sessions/` first, then `archived_sessions/`, skipping an archived file whose
* name is already live under `sessions/` of the same root (the live copy wins).
*/
async function* discover$1(roots) {
	for (const root of roots) {
		const live = /* @__PURE__ */ new Set();
		for (const p of walkRollouts(join(root, SESSIONS_SUBDIR))) {
			live.add(basename(p));
			yield sessionFile(p, root);
		}
		for (const p of walkRollouts(join(root, ARCHIVED_SESSIONS_SUBDIR))) if (!live.has(basename(p))) yield sessionFile(p, root);
	}
}
async function findIn(dir, suffix) {
	let names;
	try {
		names = await readdir(dir);
	} catch {
		return;
	}
	const hit = names.filter((n) => n.startsWith("rollout-") && n.toLowerCase().endsWith(suffix)).sort()[0];
	return hit === void 0 ? void 0 : join(dir, hit);
}
/**
* Find a thread's rollout by the uuid at the end of its file name. A UUIDv7 id names its creation time, so
* its day directories are tried first; otherwise (or on a miss) every root is walked.
*/
async function locate(roots, nativeId) {
	const id = nativeId.toLowerCase();
	const suffix = `-${id}.jsonl`;
	for (const root of roots) for (const dir of candidateDayDirs(root, id)) {
		const p = await findIn(dir, suffix);
		if (p !== void 0) return sessionFile(p, root);
	}
	for await (const f of discover$1(roots)) if (f.sessionId === id) return f;
}
var PARSER_VERSION, codex;
var init_codex = __esmMin((async () => {
	init_read_jsonl();
	await init_parse();
	init_paths$1();
	init_prefilter();
	init_schema();
	PARSER_VERSION = 1;
	codex = {
		id: CODEC_ID,
		aliases: ["codex-cli", "openai-codex"],
		displayName: "Codex CLI",
		parserVersion: PARSER_VERSION,
		capabilities: {
			incremental: true,
			persistence: "jsonl",
			eventsPrecedeMtime: true
		},
		defaultRoots: getCodexRoots,
		discover: discover$1,
		locate,
		getParseDependencies: () => [],
		lineCore: codexCore,
		read: createJsonlRead({
			id: CODEC_ID,
			parserVersion: PARSER_VERSION
		}, codexCore),
		resumeCommand: (nativeId) => [
			"codex",
			"resume",
			nativeId
		]
	};
}));
// dist/src/builtin-codecs.js
var BUILTIN_CODECS;
var init_builtin_codecs = __esmMin((async () => {
	init_sessionfold_jsonl();
	await init_claude();
	await init_codex();
	BUILTIN_CODECS = [
		sessionfoldJsonl,
		claude,
		codex
	];
}));
// dist/src/registry.js
/** Register a codec under its id and aliases (and an extra adapter name, if given). Replaces an earlier one with the same id. */
function registerCodec(codec, adapterName) {
	const existing = ordered.findIndex((c) => c.id === codec.id);
	if (existing >= 0) ordered.splice(existing, 1, codec);
	else ordered.push(codec);
	for (const name of [
		codec.id,
		...codec.aliases,
		...adapterName ? [adapterName] : []
	]) byName.set(name.toLowerCase(), codec);
}
/** The codec registered under `name` (id or alias), or undefined. */
function findCodec(name) {
	return byName.get(name.toLowerCase());
}
/** The codec registered under `name`, or AGENT_NOT_FOUND. */
function getCodec(name) {
	const c = findCodec(name);
	if (!c) throw new SessionfoldError("AGENT_NOT_FOUND", `Unknown agent "${name}". Known: ${ordered.map((x) => x.id).join(", ")}`, { agent: name });
	return c;
}
/** Every registered codec, built-ins first, in registration order. */
function listCodecs() {
	return ordered;
}
var byName, ordered;
var init_registry = __esmMin((async () => {
	init_errors();
	await init_builtin_codecs();
	byName = /* @__PURE__ */ new Map();
	ordered = [];
	for (const c of BUILTIN_CODECS) registerCodec(c);
}));
// dist/src/cost/models.js
/** Normalize a recorded model id (pure; memoize the caller side). */
function normalizeModelName(raw) {
	let name = raw.trim().toLowerCase();
	let vendor;
	name = name.replace(/\[[^\]]*\]$/, "");
	const slash = name.lastIndexOf("/");
	if (slash >= 0) {
		const first = name.slice(0, name.indexOf("/"));
		vendor = VENDOR_ALIASES[first];
		name = name.slice(slash + 1);
	}
	const bedrock = BEDROCK_RE.exec(name);
	if (bedrock) {
		vendor ??= VENDOR_ALIASES[bedrock[1]];
		name = bedrock[2];
	}
	name = name.replace(/@(20\d{6})$/, "-$1");
	const undated = DATE_SUFFIX_RE.test(name) ? name.replace(DATE_SUFFIX_RE, "") : void 0;
	return {
		name,
		undated,
		vendor
	};
}
/**
* Ordered lookup candidates for a recorded (provider, model): the provider the event names, then the
* library's own model-match rules, then a provider implied by a prefix, then each first-party provider;
* the whole list again for the undated name. Duplicates are removed.
*/
function modelCandidates(model, provider) {
	const raw = model.trim().toLowerCase();
	const norm = normalizeModelName(model);
	const out = [];
	const seen = /* @__PURE__ */ new Set();
	const add = (providerId, m) => {
		const k = `${providerId ?? ""}\u0000${m}`;
		if (m === "" || seen.has(k)) return;
		seen.add(k);
		out.push({
			providerId,
			model: m
		});
	};
	const prov = provider?.trim().toLowerCase() || void 0;
	const names = norm.undated === void 0 ? [norm.name] : [norm.name, norm.undated];
	if (prov !== void 0) add(prov, raw);
	for (const n of names) {
		if (prov !== void 0) add(prov, n);
		add(void 0, n);
		if (norm.vendor !== void 0) add(norm.vendor, n);
		for (const p of FIRST_PARTY_PROVIDERS) add(p, n);
	}
	return out;
}
var FIRST_PARTY_PROVIDERS, BEDROCK_RE, DATE_SUFFIX_RE, VENDOR_ALIASES;
var init_models = __esmMin((() => {
	FIRST_PARTY_PROVIDERS = [
		"anthropic",
		"openai",
		"google",
		"x-ai",
		"deepseek",
		"moonshotai",
		"zai",
		"mistral",
		"minimax",
		"cohere"
	];
	BEDROCK_RE = /^(?:(?:us|eu|apac|au|jp|ca|global|us-gov)\.)?(anthropic|meta|amazon|mistral|cohere|ai21|deepseek|openai|qwen|moonshotai|minimax)\.(.+?)(?:-v\d+(?::\d+)?)?$/;
	DATE_SUFFIX_RE = /-(?:20\d{6}|20\d{2}-\d{2}-\d{2})$/;
	VENDOR_ALIASES = {
		anthropic: "anthropic",
		claude: "anthropic",
		openai: "openai",
		google: "google",
		gemini: "google",
		vertex: "google",
		"vertex_ai": "google",
		xai: "x-ai",
		"x-ai": "x-ai",
		deepseek: "deepseek",
		moonshotai: "moonshotai",
		moonshot: "moonshotai",
		zai: "zai",
		"z-ai": "zai",
		mistral: "mistral",
		mistralai: "mistral",
		minimax: "minimax",
		cohere: "cohere",
		bedrock: "aws",
		amazon: "aws"
	};
}));
// dist/src/cost/overrides.js
/**
* Per-model price overrides: a user file that prices models the bundled data does not know (a local or
* company-hosted model), or re-prices ones it does (a negotiated rate). Looked up at
* `--prices <file>` / `pricesFile`, else `$SESSIONFOLD_PRICES`, else `$XDG_CONFIG_HOME/sessionfold/prices.json`
* (default `~/.config/sessionfold/prices.json`; a missing default file means no overrides, a missing named
* file is an error). Format (genai-prices price keys, USD per million tokens, plain or tiered):
*
*   { "models": {
*       "my-local-model":  { "input_mtok": 0, "output_mtok": 0 },
*       "claude-sonnet-4-5": { "input_mtok": { "base": 3, "tiers": [{ "start": 200000, "price": 6 }] }, "output_mtok": 15 },
*       "acme-*":          { "input_mtok": 1, "output_mtok": 2, "cache_read_mtok": 0.1 } } }
*
* A key matches the recorded model id or its normalized name (case-insensitive); a key ending in `*` matches
* by prefix (the longest prefix wins). Unknown price keys are rejected (PRICE_ERROR), so a typo never turns
* into a silent $0.
*/
/** The override file that applies: explicit path, `$SESSIONFOLD_PRICES`, or the XDG default (not required to exist). */
function getPricesPath(env = process.env, explicit) {
	if (explicit) return {
		path: explicit,
		required: true
	};
	if (env.SESSIONFOLD_PRICES) return {
		path: env.SESSIONFOLD_PRICES,
		required: true
	};
	const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
	return {
		path: join(config, "sessionfold", "prices.json"),
		required: false
	};
}
function fail(path, message) {
	throw new SessionfoldError("PRICE_ERROR", `Invalid prices file ${path}: ${message}`, { file: path });
}
function checkPrice(path, model, key, v) {
	const ok = (n) => typeof n === "number" && Number.isFinite(n) && n >= 0;
	if (ok(v)) return v;
	if (v !== null && typeof v === "object" && !Array.isArray(v)) {
		const t = v;
		if (ok(t.base) && Array.isArray(t.tiers)) {
			const tiers = t.tiers.map((x) => {
				const tier = x;
				if (tier === null || typeof tier !== "object" || !ok(tier.start) || !Number.isInteger(tier.start) || !ok(tier.price)) fail(path, `"${model}".${key}: each tier must be {"start": <integer tokens>, "price": <USD>}, got ${JSON.stringify(x)}`);
				return {
					start: tier.start,
					price: tier.price
				};
			});
			return {
				base: t.base,
				tiers
			};
		}
	}
	return fail(path, `"${model}".${key}: expected a non-negative number or {"base", "tiers"}, got ${JSON.stringify(v)}`);
}
/** Parse and validate an overrides document (already JSON-parsed). */
function parseOverrides(doc, path) {
	if (doc === null || typeof doc !== "object" || Array.isArray(doc)) fail(path, "expected a JSON object {\"models\": {...}}");
	const models = doc.models;
	if (models === null || typeof models !== "object" || Array.isArray(models)) fail(path, "expected a \"models\" object mapping model ids to prices");
	const exact = /* @__PURE__ */ new Map();
	const prefixes = [];
	for (const [model, prices] of Object.entries(models)) {
		if (prices === null || typeof prices !== "object" || Array.isArray(prices)) fail(path, `"${model}": expected an object of prices`);
		const mp = {};
		for (const [k, v] of Object.entries(prices)) {
			if (!OVERRIDE_PRICE_KEYS.includes(k)) fail(path, `"${model}": unknown price key "${k}" (known: ${OVERRIDE_PRICE_KEYS.join(", ")})`);
			mp[k] = checkPrice(path, model, k, v);
		}
		if (mp.input_mtok === void 0 && mp.output_mtok === void 0) fail(path, `"${model}": needs at least input_mtok or output_mtok`);
		const key = model.trim().toLowerCase();
		if (key.endsWith("*")) prefixes.push([key.slice(0, -1), mp]);
		else exact.set(key, mp);
	}
	prefixes.sort((a, b) => b[0].length - a[0].length);
	return {
		path,
		exact,
		prefixes
	};
}
/** Load the overrides that apply (none when the default file does not exist). */
function loadPriceOverrides(env = process.env, explicit) {
	const { path, required } = getPricesPath(env, explicit);
	let text;
	try {
		text = readFileSync(path, "utf8");
	} catch (e) {
		if (e.code === "ENOENT" && !required) return NO_OVERRIDES;
		throw new SessionfoldError("PRICE_ERROR", `Cannot read prices file ${path}: ${e.message}`, {
			file: path,
			cause: e
		});
	}
	let doc;
	try {
		doc = JSON.parse(text);
	} catch (e) {
		fail(path, e.message);
	}
	return parseOverrides(doc, path);
}
/** The override for any of the names (exact first, then the longest matching prefix). */
function findOverride(o, names) {
	for (const n of names) {
		const p = o.exact.get(n);
		if (p) return {
			key: n,
			prices: p
		};
	}
	for (const [prefix, prices] of o.prefixes) for (const n of names) if (n.startsWith(prefix)) return {
		key: `${prefix}*`,
		prices
	};
}
var OVERRIDE_PRICE_KEYS, NO_OVERRIDES;
var init_overrides = __esmMin((() => {
	init_errors();
	OVERRIDE_PRICE_KEYS = [
		"input_mtok",
		"output_mtok",
		"cache_read_mtok",
		"cache_write_mtok",
		"cache_write_1h_mtok",
		"output_reasoning_mtok",
		"requests_kcount"
	];
	NO_OVERRIDES = {
		path: void 0,
		exact: /* @__PURE__ */ new Map(),
		prefixes: []
	};
}));
// dist/src/cost/surcharges.js
/** The fast-mode multiple of a model id. */
function fastModeMultiplier(model) {
	const m = model.toLowerCase();
	for (const [re, x] of FAST_MODE_MULTIPLIERS) if (re.test(m)) return x;
	return 6;
}
/** Apply the surcharges of `u` to its computed token cost. */
function withSurcharges(tokenUsd, u) {
	let usd = tokenUsd;
	if (u.speed === "fast") usd *= fastModeMultiplier(u.model);
	const searches = u.webSearchRequests;
	if (typeof searches === "number" && searches > 0) usd += searches * WEB_SEARCH_USD_PER_REQUEST;
	return usd;
}
var WEB_SEARCH_USD_PER_REQUEST, FAST_MODE_MULTIPLIERS;
var init_surcharges = __esmMin((() => {
	WEB_SEARCH_USD_PER_REQUEST = 10 / 1e3;
	FAST_MODE_MULTIPLIERS = [
		[/opus-4[.-]6/, 6],
		[/opus-4[.-]7/, 6],
		[/opus-4[.-]8/, 2],
		[/opus-5(?![.-]?\d)/, 2]
	];
}));
// dist/src/cost/price-table.js
function isTiered(v) {
	return typeof v === "object" && v !== null && Array.isArray(v.tiers);
}
/**
* The flat price of one key for prompts in the level that begins above `level` (undefined: base). A prompt
* P in (level, next level] passes exactly the tiers whose start is <= level (genai-prices: P > start).
*/
function priceAt(v, level) {
	if (v === void 0) return void 0;
	if (typeof v === "number") return v;
	let p = v.base;
	if (level !== void 0) {
		for (const t of [...v.tiers].sort((a, b) => a.start - b.start)) if (t.start <= level) p = t.price;
	}
	return p;
}
function ratesAt(mp, level) {
	const get = (k) => priceAt(mp[k], level);
	const input = get("input_mtok") ?? 0;
	const cacheRead = get("cache_read_mtok") ?? input;
	const cw = get("cache_write_mtok");
	const cacheWrite = cw ?? input;
	const cacheWrite1h = get("cache_write_1h_mtok") ?? (cw !== void 0 ? 2 * input : cacheWrite);
	const output = get("output_mtok") ?? 0;
	const reasoning = get("output_reasoning_mtok") ?? output;
	const req = mp.requests_kcount;
	const request = typeof req === "number" ? req / 1e3 : 0;
	return {
		input: input / 1e6,
		cacheRead: cacheRead / 1e6,
		cacheWrite: cacheWrite / 1e6,
		cacheWrite1h: cacheWrite1h / 1e6,
		output: output / 1e6,
		reasoning: reasoning / 1e6,
		request
	};
}
/** Flatten a ModelPrice (numbers or tiered) into base rates and long-context levels. */
function buildVariant(mp, constraint) {
	const starts = /* @__PURE__ */ new Set();
	for (const k of TOKEN_KEYS) {
		const v = mp[k];
		if (isTiered(v)) for (const t of v.tiers) starts.add(t.start);
	}
	const levels = [...starts].sort((a, b) => a - b).map((above) => ({
		above,
		rates: ratesAt(mp, above)
	}));
	return {
		constraint,
		base: ratesAt(mp, void 0),
		levels
	};
}
function secondsOfDay(time) {
	const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
	if (!m) return 0;
	return (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(`0.${m[4] ?? ""}`) - (m[5] === "Z" ? 0 : (m[6] === "+" ? 1 : -1) * (Number(m[7]) * 3600 + Number(m[8]) * 60)) + 86400) % 86400;
}
/** Build the entry of a genai-prices ModelInfo (all its conditional variants). */
function entryFromModelInfo(model, providerId) {
	const variants = (Array.isArray(model.prices) ? model.prices : [{ prices: model.prices }]).map((c) => {
		const k = c.constraint;
		let constraint = { kind: "always" };
		if (k && k.type === "start_date") constraint = {
			kind: "since",
			ms: Date.parse(`${k.start_date}T00:00:00Z`)
		};
		else if (k && k.type === "time_of_date") constraint = {
			kind: "timeOfDay",
			start: secondsOfDay(k.start_time),
			end: secondsOfDay(k.end_time)
		};
		return buildVariant(c.prices, constraint);
	});
	return {
		modelId: model.id,
		providerId,
		source: "genai-prices",
		variants
	};
}
/** The variant in force at `ms` (genai-prices' rule: last matching constraint wins; else the first). */
function selectVariant(entry, ms) {
	const vs = entry.variants;
	if (vs.length === 1) return vs[0];
	for (let i = vs.length - 1; i >= 0; i--) {
		const v = vs[i];
		const c = v.constraint;
		if (c.kind === "always") return v;
		if (Number.isNaN(ms)) continue;
		if (c.kind === "since") {
			if (ms >= c.ms) return v;
		} else {
			const d = new Date(ms);
			const t = d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds() + d.getUTCMilliseconds() / 1e3;
			if (c.end < c.start ? t >= c.start || t < c.end : t >= c.start && t < c.end) return v;
		}
	}
	return vs[0];
}
/** Rates for a usage: the long-context level when `tiered` and the prompt passes its threshold. */
function ratesFor(variant, u, tiered) {
	let rates = variant.base;
	if (tiered && variant.levels.length > 0) {
		const prompt = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
		for (const l of variant.levels) if (prompt > l.above) rates = l.rates;
	}
	return rates;
}
/** USD of a usage at the given rates. Inconsistent counts (1h > all writes, reasoning > output) are clamped. */
function costAt(r, u) {
	const cw1h = Math.min(u.cacheWrite1hTokens, u.cacheWriteTokens);
	const reasoning = r.reasoning === r.output ? 0 : Math.min(u.reasoningTokens, u.outputTokens);
	return u.inputTokens * r.input + u.cacheReadTokens * r.cacheRead + (u.cacheWriteTokens - cw1h) * r.cacheWrite + cw1h * r.cacheWrite1h + (u.outputTokens - reasoning) * r.output + reasoning * r.reasoning + r.request;
}
var TOKEN_KEYS;
var init_price_table = __esmMin((() => {
	TOKEN_KEYS = [
		"input_mtok",
		"cache_read_mtok",
		"cache_write_mtok",
		"cache_write_1h_mtok",
		"output_mtok",
		"output_reasoning_mtok"
	];
}));
// dist/src/cost/pricing.js
/**
* `createPricer()`: prices usage events. Each distinct (provider, model) is resolved once (overrides first,
* then genai-prices' bundled data, offline: `updatePrices` is never called) into a PriceEntry of flat rates
* (price-table.ts); pricing an event is then a memoized map lookup and a few multiplications.
*
* Cost modes:
* - `auto`: the agent's own recorded `costUsd` when present, else the computed price.
* - `calculate`: always the computed price.
* - `display`: the recorded cost only; an event without one has no price (reported as unpriced).
*
* A model without a price is never $0: `price()` returns `usd: undefined, unpriced: true` and the folds
* list it. The one exception is usage with no tokens at all, which costs $0 whatever its model.
*/
var pricing_exports = /* @__PURE__ */ __exportAll({
	COST_MODES: () => COST_MODES$1,
	PRICING_RULES_VERSION: () => 1,
	checkCostMode: () => checkCostMode,
	createPricer: () => createPricer,
	priceDataVersion: () => priceDataVersion,
	resolvePriceEntry: () => resolvePriceEntry
});
/**
* genai-prices, loaded on first use: its bundled data takes ~30 ms to load (timed once here), which a warm report whose models
* are all resolved already (a fold snapshot carries its pricer's resolutions) never pays.
*/
function genaiPrices() {
	genai ??= require("@pydantic/genai-prices");
	return genai;
}
/** The installed genai-prices version (its price data changes with it). */
function priceDataVersion() {
	if (dataVersion === void 0) try {
		const pkg = join(dirname(require.resolve("@pydantic/genai-prices")), "..", "package.json");
		dataVersion = String(JSON.parse(readFileSync(pkg, "utf8")).version ?? "unknown");
	} catch {
		dataVersion = "unknown";
	}
	return dataVersion;
}
/** Resolve a recorded (model, provider) to a price entry, trying overrides then the bundled data. */
function resolvePriceEntry(model, provider, overrides) {
	if (overrides && (overrides.exact.size > 0 || overrides.prefixes.length > 0)) {
		const n = normalizeModelName(model);
		const o = findOverride(overrides, [
			model.trim().toLowerCase(),
			n.name,
			...n.undated !== void 0 ? [n.undated] : []
		]);
		if (o) return {
			modelId: o.key,
			providerId: "override",
			source: "override",
			variants: [buildVariant(o.prices, { kind: "always" })]
		};
	}
	for (const c of modelCandidates(model, provider)) {
		let r;
		try {
			r = genaiPrices().calcPrice({
				input_tokens: 0,
				output_tokens: 0
			}, c.model, {
				...c.providerId !== void 0 && { providerId: c.providerId },
				timestamp: RESOLVE_TIME
			});
		} catch {
			continue;
		}
		if (r) return entryFromModelInfo(r.model, r.provider.id);
	}
}
function hasNoTokens(u) {
	return u.inputTokens === 0 && u.outputTokens === 0 && u.cacheReadTokens === 0 && u.cacheWriteTokens === 0;
}
/** Check a cost mode option. */
function checkCostMode(mode, name = "mode") {
	if (typeof mode === "string" && COST_MODES$1.includes(mode)) return mode;
	throw invalidOption(name, COST_MODES$1.join("|"), mode);
}
/**
* Create a pricer. Price overrides are read once, here.
* @example
* const pricer = createPricer({ mode: 'calculate' });
* pricer.price({ model: 'claude-sonnet-4-20250514', timestamp: '2025-06-01T00:00:00Z', singleRequest: true,
*   inputTokens: 10, outputTokens: 200, reasoningTokens: 0, cacheReadTokens: 5000, cacheWriteTokens: 1000, cacheWrite1hTokens: 0 });
* // → { usd: 0.00675, source: 'calculated', unpriced: false }
*/
function createPricer(options = {}) {
	const mode = checkCostMode(options.mode ?? "auto");
	const overrides = options.overrides ?? loadPriceOverrides(options.env ?? process.env, options.pricesFile);
	const memo = /* @__PURE__ */ new Map();
	const fingerprint = JSON.stringify({
		data: priceDataVersion(),
		rules: 1,
		exact: [...overrides.exact].sort((a, b) => a[0] < b[0] ? -1 : 1),
		prefixes: overrides.prefixes
	});
	let lastModel;
	let lastProvider;
	let lastEntry;
	const resolve = (model, provider) => {
		if (model === lastModel && provider === lastProvider) return lastEntry;
		const key = provider === void 0 ? model : `${provider}\u0000${model}`;
		let e = memo.get(key);
		if (e === void 0) {
			e = resolvePriceEntry(model, provider, overrides) ?? null;
			memo.set(key, e);
		}
		lastModel = model;
		lastProvider = provider;
		lastEntry = e ?? void 0;
		return lastEntry;
	};
	const calculate = (u) => {
		const entry = resolve(u.model, u.provider);
		if (!entry) return hasNoTokens(u) ? 0 : void 0;
		const usd = costAt(ratesFor(entry.variants.length === 1 ? entry.variants[0] : selectVariant(entry, Date.parse(u.timestamp)), u, u.singleRequest), u);
		return u.speed === void 0 && u.webSearchRequests === void 0 ? usd : withSurcharges(usd, u);
	};
	return {
		mode,
		overridesPath: overrides.path,
		fingerprint,
		exportResolved: () => [...memo],
		seed(resolved) {
			for (const [k, e] of resolved) if (!memo.has(k)) memo.set(k, e);
		},
		resolve,
		calculate,
		priceUsd(u, m = mode) {
			const c = u.costUsd;
			if (m !== "calculate" && typeof c === "number" && Number.isFinite(c)) return c;
			if (m === "display") return hasNoTokens(u) ? 0 : NaN;
			return calculate(u) ?? NaN;
		},
		price(u, m = mode) {
			const recorded = typeof u.costUsd === "number" && Number.isFinite(u.costUsd) ? u.costUsd : void 0;
			if (m === "display") {
				if (recorded !== void 0) return {
					usd: recorded,
					source: "agent",
					unpriced: false
				};
				return hasNoTokens(u) ? {
					usd: 0,
					source: "calculated",
					unpriced: false
				} : {
					usd: void 0,
					source: "agent",
					unpriced: true
				};
			}
			if (m === "auto" && recorded !== void 0) return {
				usd: recorded,
				source: "agent",
				unpriced: false
			};
			const usd = calculate(u);
			return {
				usd,
				source: "calculated",
				unpriced: usd === void 0
			};
		}
	};
}
var require, genai, dataVersion, COST_MODES$1, RESOLVE_TIME;
var init_pricing = __esmMin((() => {
	init_errors();
	init_models();
	init_overrides();
	init_surcharges();
	init_price_table();
	require = createRequire(import.meta.url);
	COST_MODES$1 = [
		"auto",
		"calculate",
		"display"
	];
	RESOLVE_TIME = /* @__PURE__ */ new Date("2025-01-01T00:00:00Z");
}));
// dist/src/scan/discover.js
/**
* Discovery: every selected codec's files under its roots, each stat'ed once (size, mtimeMs) with its parse
* dependencies' fingerprints, then the `since` filter. Stats are synchronous: for thousands of small files a
* tight `statSync` loop is several times faster than as many promises through libuv's pool.
*/
/** `[[path, size, mtimeMs] | [path, null]]` as JSON: a missing dependency is recorded as missing. */
function fingerprintDependencies(codec, path) {
	const deps = codec.getParseDependencies(path);
	if (deps.length === 0) return "[]";
	return JSON.stringify(deps.map((d) => {
		const s = statSync(d, { throwIfNoEntry: false });
		return s === void 0 ? [d, null] : [
			d,
			s.size,
			s.mtimeMs
		];
	}));
}
async function discoverFiles(opts) {
	const seen = /* @__PURE__ */ new Map();
	const perSource = await Promise.all(opts.sources.map(async ({ codec, roots }) => {
		const paths = /* @__PURE__ */ new Set();
		seen.set(codec.id, paths);
		const found = [];
		if (roots.length === 0) return {
			codec,
			found
		};
		for await (const f of codec.discover(roots)) {
			if (paths.has(f.path)) continue;
			paths.add(f.path);
			found.push({
				path: f.path,
				root: f.root
			});
		}
		return {
			codec,
			found
		};
	}));
	const files = [];
	const stats = opts.stats;
	for (const { codec, found } of perSource) {
		const skipByMtime = opts.since !== void 0 && codec.capabilities.eventsPrecedeMtime === true;
		for (const { path, root } of found) {
			const s = statSync(path, { throwIfNoEntry: false });
			if (s === void 0) {
				seen.get(codec.id)?.delete(path);
				continue;
			}
			stats.files++;
			if (skipByMtime && s.mtimeMs < opts.since) {
				stats.skippedSince++;
				continue;
			}
			files.push({
				codec,
				path,
				root,
				size: s.size,
				mtimeMs: s.mtimeMs,
				deps: fingerprintDependencies(codec, path)
			});
		}
	}
	return {
		files,
		seen
	};
}
var init_discover = __esmMin((() => {}));
// dist/src/cache/paths.js
/** Where the event cache lives: `$SESSIONFOLD_CACHE`, else `$XDG_CACHE_HOME/sessionfold/events.db` (default `~/.cache/…`). */
function getCachePath(env = process.env) {
	if (env.SESSIONFOLD_CACHE) return env.SESSIONFOLD_CACHE;
	const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache");
	return join(base, "sessionfold", "events.db");
}
var init_paths = __esmMin((() => {}));
// dist/src/scan/types.js
/** A fresh ScanDelta over a state built from `covered` (empty: the scan yields everything, and fills `gens`). */
function newScanDelta(covered = /* @__PURE__ */ new Map(), instance) {
	return {
		covered,
		...instance !== void 0 && { instance },
		removed: [],
		exact: true,
		gens: /* @__PURE__ */ new Map()
	};
}
function newScanStats() {
	return {
		files: 0,
		skippedSince: 0,
		unchanged: 0,
		resumed: 0,
		fullReads: 0,
		deleted: 0,
		failed: 0,
		bytesRead: 0,
		bytesVerified: 0,
		records: 0,
		retainedRecords: 0,
		skippedLines: 0,
		workers: 0,
		cache: "off",
		conflicts: 0
	};
}
var init_types = __esmMin((() => {}));
// dist/src/scan/options.js
/** `normalizeScanOptions`: every default filled once, every bad option an INVALID_OPTION. */
function defaultWarning(message) {
	process.emitWarning(message, { type: "SessionfoldWarning" });
}
function normalizeScanOptions(user = {}) {
	const env = user.env ?? process.env;
	let codecs;
	if (user.agents === void 0) codecs = [...listCodecs()];
	else {
		if (!Array.isArray(user.agents) || user.agents.some((a) => typeof a !== "string")) throw invalidOption("agents", "an array of agent ids", user.agents);
		codecs = [];
		for (const a of user.agents) {
			const c = getCodec(a);
			if (!codecs.includes(c)) codecs.push(c);
		}
	}
	const overrides = /* @__PURE__ */ new Map();
	if (user.roots !== void 0) {
		if (user.roots === null || typeof user.roots !== "object") throw invalidOption("roots", "an object of agent → string[]", user.roots);
		for (const [name, roots] of Object.entries(user.roots)) {
			if (!Array.isArray(roots) || roots.some((r) => typeof r !== "string")) throw invalidOption(`roots.${name}`, "an array of paths", roots);
			const c = findCodec(name);
			if (c === void 0) throw invalidOption("roots", `agent ids (${listCodecs().map((x) => x.id).join(", ")})`, name);
			overrides.set(c, [...overrides.get(c) ?? [], ...roots]);
		}
	}
	const sources = codecs.map((codec) => ({
		codec,
		roots: [...new Set(overrides.get(codec) ?? codec.defaultRoots(env))]
	}));
	let since;
	if (user.since !== void 0) {
		if (!(user.since instanceof Date) || Number.isNaN(user.since.getTime())) throw invalidOption("since", "a valid Date", user.since);
		since = user.since.getTime();
	}
	if (user.workers !== void 0 && (!Number.isInteger(user.workers) || user.workers < 0)) throw invalidOption("workers", "a non-negative integer", user.workers);
	if (user.cachePath !== void 0 && (typeof user.cachePath !== "string" || user.cachePath === "")) throw invalidOption("cachePath", "a file path", user.cachePath);
	if (user.cache !== void 0 && typeof user.cache !== "boolean") throw invalidOption("cache", "a boolean", user.cache);
	const stats = user.stats ?? newScanStats();
	return {
		sources,
		since,
		cache: user.cache ?? true,
		cachePath: user.cachePath ?? getCachePath(env),
		workers: user.workers,
		env,
		onProgress: user.onProgress,
		onWarning: user.onWarning ?? defaultWarning,
		retainDeleted: user.retainDeleted ?? true,
		stats,
		delta: user.delta
	};
}
/** The pool size for `tasks` tasks totalling `bytes` to read. */
function resolveWorkers(requested, tasks, bytes) {
	if (requested !== void 0) return Math.min(requested, tasks);
	if (tasks <= 1 || bytes < 536870912) return 0;
	return Math.min(availableParallelism(), 4, tasks);
}
var init_options = __esmMin((async () => {
	init_errors();
	await init_registry();
	init_paths();
	init_types();
}));
// dist/src/scan/segment.js
function isWellFormed(s) {
	const f = s.isWellFormed;
	if (f !== void 0) return f.call(s);
	return !/[\ud800-\udfff]/.test(s) || /^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/.test(s);
}
/** Decode a segment (a copy is made only when `bytes` is not 8-byte aligned). Throws on a malformed one. */
function decodeSegment(bytes) {
	if (bytes.byteLength < HEADER) throw new Error("segment: truncated header");
	let b = bytes;
	if (b.byteOffset % 8 !== 0) b = new Uint8Array(b);
	const head = new Uint32Array(b.buffer, b.byteOffset, 8);
	if (head[0] !== MAGIC && head[0] !== MAGIC_V1) throw new Error("segment: bad magic");
	const numCols = head[0] === MAGIC ? NUM_COLS : V1_NUM_COLS;
	const strCols = head[0] === MAGIC ? STR_COLS : V1_STR_COLS;
	const n = head[1];
	const nStrings = head[2];
	const textBytes = head[3];
	const enc = head[4];
	const numsAt = HEADER;
	const idxAt = numsAt + 8 * numCols * n;
	const lenAt = idxAt + 4 * strCols * n;
	const flagsAt = lenAt + 4 * nStrings;
	const textAt = flagsAt + n;
	if (textAt + textBytes !== b.byteLength || enc !== ENC_UTF8 && enc !== ENC_UTF16) throw new Error("segment: bad length");
	const base = b.byteOffset;
	const lens = new Uint32Array(b.buffer, base + lenAt, nStrings);
	const text = Buffer.from(b.buffer, base + textAt, textBytes).toString(enc === ENC_UTF16 ? "utf16le" : "utf8");
	const strings = new Array(nStrings + 1);
	strings[0] = void 0;
	let pos = 0;
	for (let i = 0; i < nStrings; i++) {
		const len = lens[i];
		strings[i + 1] = text.slice(pos, pos + len);
		pos += len;
	}
	if (pos !== text.length) throw new Error("segment: bad dictionary");
	return {
		count: n,
		numCols,
		strCols,
		nums: new Float64Array(b.buffer, base + numsAt, numCols * n),
		idx: new Uint32Array(b.buffer, base + idxAt, strCols * n),
		strings,
		flags: new Uint8Array(b.buffer, base + flagsAt, n)
	};
}
/** Number of events in an encoded segment, from its header. */
function segmentCount(bytes) {
	return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
}
/** The dedup key of event `i`. */
function segmentKey(seg, i) {
	return seg.strings[seg.idx[5 * seg.count + i]];
}
/** Append the records of events [from, to) of `seg` to `out`. */
function pushRecords(seg, file, cwd, retained, out, from = 0, to = seg.count) {
	const n = seg.count;
	const { nums, idx, strings, flags } = seg;
	for (let i = from; i < to; i++) {
		const f = flags[i];
		const r = {
			type: "usage",
			agent: strings[idx[i]],
			sessionId: strings[idx[n + i]],
			offset: nums[i],
			model: strings[idx[2 * n + i]],
			timestamp: strings[idx[4 * n + i]],
			inputTokens: nums[n + i],
			outputTokens: nums[2 * n + i],
			reasoningTokens: nums[3 * n + i],
			cacheReadTokens: nums[4 * n + i],
			cacheWriteTokens: nums[5 * n + i],
			cacheWrite1hTokens: nums[6 * n + i],
			singleRequest: (f & F_SINGLE) !== 0,
			dedupKey: strings[idx[5 * n + i]],
			file
		};
		if (f & F_FALLBACK_TRUE) r.modelFallback = true;
		else if (f & F_FALLBACK_FALSE) r.modelFallback = false;
		const provider = strings[idx[3 * n + i]];
		if (provider !== void 0) r.provider = provider;
		const cost = nums[7 * n + i];
		if (!Number.isNaN(cost)) r.costUsd = cost;
		const messageId = strings[idx[6 * n + i]];
		if (messageId !== void 0) r.messageId = messageId;
		if (seg.numCols > 8) {
			const searches = nums[8 * n + i];
			if (!Number.isNaN(searches)) r.webSearchRequests = searches;
		}
		if (seg.strCols > 7) {
			const speed = strings[idx[7 * n + i]];
			if (speed !== void 0) r.speed = speed;
		}
		if (cwd !== void 0) r.cwd = cwd;
		if (retained) r.retained = true;
		out.push(r);
	}
}
var MAGIC_V1, MAGIC, HEADER, NUM_COLS, STR_COLS, V1_NUM_COLS, V1_STR_COLS, ENC_UTF8, ENC_UTF16, F_SINGLE, F_FALLBACK_TRUE, F_FALLBACK_FALSE, SegmentWriter;
var init_segment = __esmMin((() => {
	MAGIC_V1 = 826754387;
	MAGIC = 843531603;
	HEADER = 32;
	NUM_COLS = 9;
	STR_COLS = 8;
	V1_NUM_COLS = 8;
	V1_STR_COLS = 7;
	ENC_UTF8 = 1;
	ENC_UTF16 = 2;
	F_SINGLE = 1;
	F_FALLBACK_TRUE = 2;
	F_FALLBACK_FALSE = 4;
	SegmentWriter = class {
		#n = 0;
		#nums = Array.from({ length: NUM_COLS }, () => []);
		#idx = Array.from({ length: STR_COLS }, () => []);
		#flags = [];
		#dict = /* @__PURE__ */ new Map();
		#strings = [];
		#wellFormed = true;
		get count() {
			return this.#n;
		}
		#str(v) {
			if (v === void 0 || v === null) return 0;
			const s = typeof v === "string" ? v : String(v);
			let i = this.#dict.get(s);
			if (i === void 0) {
				this.#strings.push(s);
				i = this.#strings.length;
				this.#dict.set(s, i);
				if (this.#wellFormed && !isWellFormed(s)) this.#wellFormed = false;
			}
			return i;
		}
		add(e) {
			const n = this.#nums;
			n[0].push(e.offset);
			n[1].push(e.inputTokens);
			n[2].push(e.outputTokens);
			n[3].push(e.reasoningTokens);
			n[4].push(e.cacheReadTokens);
			n[5].push(e.cacheWriteTokens);
			n[6].push(e.cacheWrite1hTokens);
			n[7].push(typeof e.costUsd === "number" ? e.costUsd : NaN);
			n[8].push(typeof e.webSearchRequests === "number" ? e.webSearchRequests : NaN);
			const s = this.#idx;
			s[0].push(this.#str(e.agent));
			s[1].push(this.#str(e.sessionId));
			s[2].push(this.#str(e.model));
			s[3].push(this.#str(e.provider));
			s[4].push(this.#str(e.timestamp));
			s[5].push(this.#str(e.dedupKey));
			s[6].push(this.#str(e.messageId));
			s[7].push(this.#str(e.speed));
			let f = e.singleRequest ? F_SINGLE : 0;
			if (e.modelFallback === true) f |= F_FALLBACK_TRUE;
			else if (e.modelFallback === false) f |= F_FALLBACK_FALSE;
			this.#flags.push(f);
			this.#n++;
		}
		/** Copy event `i` of a decoded segment (no re-parse of its strings). */
		addFrom(seg, i) {
			const c = seg.count;
			for (let k = 0; k < NUM_COLS; k++) this.#nums[k].push(k < seg.numCols ? seg.nums[k * c + i] : NaN);
			for (let k = 0; k < STR_COLS; k++) this.#idx[k].push(k < seg.strCols ? this.#str(seg.strings[seg.idx[k * c + i]]) : 0);
			this.#flags.push(seg.flags[i]);
			this.#n++;
		}
		/** Encode what was added and reset the writer. */
		finish() {
			const n = this.#n;
			const utf16 = !this.#wellFormed;
			const text = this.#strings.join("");
			const textBytes = utf16 ? text.length * 2 : Buffer.byteLength(text, "utf8");
			const nStrings = this.#strings.length;
			const numsAt = HEADER;
			const idxAt = numsAt + 72 * n;
			const lenAt = idxAt + 32 * n;
			const flagsAt = lenAt + 4 * nStrings;
			const textAt = flagsAt + n;
			const ab = new ArrayBuffer(textAt + textBytes);
			const head = new Uint32Array(ab, 0, 8);
			head[0] = MAGIC;
			head[1] = n;
			head[2] = nStrings;
			head[3] = textBytes;
			head[4] = utf16 ? ENC_UTF16 : ENC_UTF8;
			const nums = new Float64Array(ab, numsAt, NUM_COLS * n);
			for (let k = 0; k < NUM_COLS; k++) nums.set(this.#nums[k], k * n);
			const idx = new Uint32Array(ab, idxAt, STR_COLS * n);
			for (let k = 0; k < STR_COLS; k++) idx.set(this.#idx[k], k * n);
			const lens = new Uint32Array(ab, lenAt, nStrings);
			for (let i = 0; i < nStrings; i++) lens[i] = this.#strings[i].length;
			new Uint8Array(ab, flagsAt, n).set(this.#flags);
			Buffer.from(ab, textAt, textBytes).write(text, 0, textBytes, utf16 ? "utf16le" : "utf8");
			this.#reset();
			return new Uint8Array(ab);
		}
		#reset() {
			this.#n = 0;
			this.#nums = Array.from({ length: NUM_COLS }, () => []);
			this.#idx = Array.from({ length: STR_COLS }, () => []);
			this.#flags = [];
			this.#dict.clear();
			this.#strings = [];
			this.#wellFormed = true;
		}
	};
}));
// dist/src/scan/record-diff.js
/** Identity of a record in a multiset. */
function recordKey(r) {
	const { retained: _, ...rest } = r;
	return JSON.stringify(rest);
}
/** `after` minus `before` (added) and `before` minus `after` (removed), as multisets. */
function diffRecords(before, after) {
	const left = /* @__PURE__ */ new Map();
	for (const r of before) {
		const k = recordKey(r);
		left.set(k, (left.get(k) ?? 0) + 1);
	}
	const added = [];
	for (const r of after) {
		const k = recordKey(r);
		const n = left.get(k) ?? 0;
		if (n > 0) left.set(k, n - 1);
		else added.push(r);
	}
	const removed = [];
	for (const r of before) {
		const k = recordKey(r);
		const n = left.get(k) ?? 0;
		if (n > 0) {
			left.set(k, n - 1);
			removed.push(r);
		}
	}
	return {
		added,
		removed
	};
}
/**
* The net change of successive updates to one file: a record added by one update and removed by a later one
* was never there for the consumer; a record removed and added back identical (a replaced tail re-read as it
* was) is no change at all, and is in neither list.
*/
function netChange(steps) {
	if (steps.length === 1) {
		const only = steps[0];
		if (only.removed.length === 0 || only.added.length === 0) return {
			added: [...only.added],
			removed: [...only.removed]
		};
	}
	const added = /* @__PURE__ */ new Map();
	const removed = [];
	for (const step of steps) {
		for (const r of step.removed) {
			const k = recordKey(r);
			const pending = added.get(k);
			if (pending !== void 0 && pending.length > 0) pending.pop();
			else removed.push([k, r]);
		}
		for (const r of step.added) {
			const k = recordKey(r);
			const list = added.get(k);
			if (list === void 0) added.set(k, [r]);
			else list.push(r);
		}
	}
	const outRemoved = [];
	for (const [k, r] of removed) {
		const twins = added.get(k);
		if (twins !== void 0 && twins.length > 0) twins.pop();
		else outRemoved.push(r);
	}
	const outAdded = [];
	for (const list of added.values()) for (const r of list) outAdded.push(r);
	return {
		added: outAdded,
		removed: outRemoved
	};
}
var init_record_diff = __esmMin((() => {}));
// dist/src/cache/db.js
/**
* Opening the event cache database: WAL (a status line and a report read and write at once), a busy timeout,
* `synchronous = NORMAL` (a crash may lose the last transactions of a cache, never corrupt it), and a
* schema check. The file is ours when its header's `application_id` is CACHE_APPLICATION_ID and its
* `user_version` is CACHE_SCHEMA_VERSION; an empty database gets the schema in one IMMEDIATE transaction (so
* two processes creating it at once do not race). Anything else, a file that is not SQLite, a foreign
* database, a schema version this build does not know or a corrupt one, is moved aside as
* `<path>.corrupt-<ms>` (with its -wal and -shm) and rebuilt, with a warning. A sessionfold cache of an older
* schema version with a known additive migration (MIGRATIONS) is migrated in place instead, in one IMMEDIATE
* transaction, so the ledger it holds survives an upgrade.
*/
/** True when a cache of `version` can be brought to CACHE_SCHEMA_VERSION by MIGRATIONS. */
function isMigratable(version) {
	if (version < 1 || version >= 3) return false;
	for (let v = version; v < 3; v++) if (MIGRATIONS[v] === void 0) return false;
	return true;
}
/** Run the migrations from the version found (re-read inside the transaction: another process may have done it). */
function migrate(db) {
	db.transaction(() => {
		let v = db.pragma("user_version", { simple: true });
		if (!isMigratable(v)) return;
		for (; v < 3; v++) db.exec(MIGRATIONS[v]);
		db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run(`migrated-to-3`, (/* @__PURE__ */ new Date()).toISOString());
		db.pragma(`user_version = 3`);
	}).immediate();
}
/** SQLite error codes that mean the file is not a usable database. */
function isCorruptionError(e) {
	const code = e?.code;
	return code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT" || typeof code === "string" && code.startsWith("SQLITE_CORRUPT");
}
function configure(db) {
	db.pragma("journal_mode = WAL");
	db.pragma("synchronous = NORMAL");
	db.pragma("foreign_keys = OFF");
	db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
}
function validate(db) {
	const appId = db.pragma("application_id", { simple: true });
	const version = db.pragma("user_version", { simple: true });
	if (appId === 1397122422 && version === 3) {
		const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all().filter((t) => !t.startsWith("sqlite_"));
		if (EXPECTED_TABLES.every((t) => tables.includes(t))) return;
		throw new ForeignDatabase("tables missing");
	}
	if (appId !== 0 && appId !== 1397122422) throw new ForeignDatabase(`application_id ${appId}`);
	if (appId === 1397122422 && isMigratable(version)) {
		migrate(db);
		validate(db);
		return;
	}
	if (appId === 1397122422) throw new ForeignDatabase(`schema version ${version}, this build knows 3`);
	db.transaction(() => {
		const id = db.pragma("application_id", { simple: true });
		if (id === 1397122422) return;
		if (db.prepare("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").pluck().get() > 0 || id !== 0) throw new ForeignDatabase("not a sessionfold cache");
		db.exec(SCHEMA);
		db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").run("created", (/* @__PURE__ */ new Date()).toISOString());
		db.pragma(`application_id = ${CACHE_APPLICATION_ID}`);
		db.pragma(`user_version = 3`);
	}).immediate();
	validate(db);
}
function inode(path) {
	return statSync(path, { throwIfNoEntry: false })?.ino;
}
/** Move `path` (and its -wal / -shm) aside as `<path>.corrupt-<ms>`; returns the new name. */
function moveAside(path, expectedInode) {
	if (expectedInode !== void 0 && inode(path) !== expectedInode) return void 0;
	let aside = `${path}.corrupt-${Date.now()}`;
	for (let i = 1; statSync(aside, { throwIfNoEntry: false }) !== void 0; i++) aside = `${path}.corrupt-${Date.now()}-${i}`;
	try {
		renameSync(path, aside);
	} catch (e) {
		if (e.code === "ENOENT") return void 0;
		throw e;
	}
	for (const suffix of ["-wal", "-shm"]) try {
		renameSync(path + suffix, aside + suffix);
	} catch {}
	return aside;
}
/**
* Reject a foreign database before touching it (switching it to WAL would write its header). The header and
* the table count are read in one read transaction: another process may be creating the schema of a new
* cache right now, and reading its id before that commit and its tables after it would call it foreign.
*/
function precheck(db) {
	db.transaction(() => precheckRead(db))();
}
function precheckRead(db) {
	const appId = db.pragma("application_id", { simple: true });
	if (appId !== 0 && appId !== 1397122422) throw new ForeignDatabase(`application_id ${appId}`);
	if (appId === 1397122422) {
		const version = db.pragma("user_version", { simple: true });
		if (version !== 3 && !isMigratable(version)) throw new ForeignDatabase(`schema version ${version}, this build knows 3`);
	} else if (db.prepare("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").pluck().get() > 0) throw new ForeignDatabase("not a sessionfold cache");
}
function tryOpen(path) {
	const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
	try {
		precheck(db);
		configure(db);
		validate(db);
		return db;
	} catch (e) {
		db.close();
		throw e;
	}
}
/** SQLITE_BUSY / SQLITE_LOCKED: another process holds a lock the busy handler could not wait out. */
function isBusyError(e) {
	const code = e?.code;
	return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}
/**
* Open (creating) the cache at `path`; a corrupt or foreign file is moved aside and rebuilt.
*
* Two processes opening a new cache at once race to switch it to WAL and create the schema; SQLite may answer
* one of them SQLITE_BUSY at once instead of calling the busy handler (it does so to break a lock-upgrade
* deadlock), so a busy open is retried, with jitter, until the busy timeout has passed.
*/
function openCacheDb(path, warn) {
	try {
		mkdirSync(dirname(path), { recursive: true });
	} catch (e) {
		throw new SessionfoldError("CACHE_ERROR", `Cannot create the cache directory for ${path}: ${e.message}`, {
			file: path,
			cause: e
		});
	}
	let rebuilt = false;
	const deadline = Date.now() + BUSY_TIMEOUT_MS;
	for (let attempt = 0;; attempt++) {
		const ino = inode(path);
		try {
			return {
				db: tryOpen(path),
				rebuilt
			};
		} catch (e) {
			if (isBusyError(e) && Date.now() < deadline) {
				Atomics.wait(SLEEP, 0, 0, 5 + Math.floor(Math.random() * 20));
				attempt--;
				continue;
			}
			if (!(e instanceof ForeignDatabase) && !isCorruptionError(e)) throw new SessionfoldError("CACHE_ERROR", `Cannot open the event cache ${path}: ${e.message}`, {
				file: path,
				cause: e
			});
			if (attempt >= 2) throw new SessionfoldError("CACHE_ERROR", `The event cache ${path} stays unusable: ${e.message}`, {
				file: path,
				cause: e
			});
			const what = e instanceof ForeignDatabase ? `is not a sessionfold cache this version knows (${e.message})` : `is corrupt (${e.message})`;
			const aside = moveAside(path, ino);
			if (aside !== void 0) {
				warn(`The event cache ${path} ${what}: moved it aside to ${aside} and rebuilt it.`);
				rebuilt = true;
			}
		}
	}
}
var CACHE_APPLICATION_ID, PAGE_CACHE_KIB, BUSY_TIMEOUT_MS, SUMMARIES_SCHEMA, FOLDS_SCHEMA, MIGRATIONS, SCHEMA, EXPECTED_TABLES, ForeignDatabase, SLEEP;
var init_db = __esmMin((() => {
	init_errors();
	CACHE_APPLICATION_ID = 1397122422;
	PAGE_CACHE_KIB = 4e3;
	BUSY_TIMEOUT_MS = 15e3;
	SUMMARIES_SCHEMA = `
CREATE TABLE IF NOT EXISTS summaries (
  id INTEGER PRIMARY KEY,
  agent TEXT NOT NULL,
  path TEXT NOT NULL,
  parser TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  deps TEXT NOT NULL,
  fold_key TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  peek TEXT,
  usage TEXT,
  whole TEXT,
  UNIQUE (agent, path)
);
`;
	FOLDS_SCHEMA = `
CREATE TABLE IF NOT EXISTS folds (
  key TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL, -- pieces (fold_chunks rows) of the state: seqs 0 … chunk_count - 1
  used_at INTEGER NOT NULL,
  gens BLOB NOT NULL,
  prices TEXT NOT NULL,
  summary TEXT NOT NULL,
  header TEXT NOT NULL,
  changes INTEGER,
  stats TEXT
);
CREATE TABLE IF NOT EXISTS fold_chunks (
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (key, seq)
);
CREATE TABLE IF NOT EXISTS file_changes (
  file_id INTEGER NOT NULL,
  gen INTEGER NOT NULL,
  removed BLOB,
  added BLOB,
  PRIMARY KEY (file_id, gen)
);
INSERT OR IGNORE INTO meta (key, value) VALUES ('instance', lower(hex(randomblob(16))));
INSERT OR IGNORE INTO meta (key, value) VALUES ('changes', '0');
`;
	MIGRATIONS = {
		1: SUMMARIES_SCHEMA,
		2: FOLDS_SCHEMA
	};
	SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY,
  agent TEXT NOT NULL,
  path TEXT NOT NULL,
  root TEXT NOT NULL,
  parser TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  deps TEXT NOT NULL,
  prefix_hash TEXT,
  session_events INTEGER NOT NULL DEFAULT 0,
  cwd_index INTEGER,
  cwd TEXT,
  live_count INTEGER NOT NULL DEFAULT 0,
  segment_count INTEGER NOT NULL DEFAULT 0,
  ledger_count INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0,
  gen INTEGER NOT NULL DEFAULT 1,
  updated_at INTEGER NOT NULL,
  -- Large values last: a row scan that does not ask for them never reads their overflow pages.
  cursor TEXT,
  ledger BLOB,
  UNIQUE (agent, path)
);
CREATE TABLE IF NOT EXISTS segments (
  file_id INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (file_id, seq)
);
${SUMMARIES_SCHEMA}
${FOLDS_SCHEMA}`;
	EXPECTED_TABLES = [
		"file_changes",
		"files",
		"fold_chunks",
		"folds",
		"meta",
		"segments",
		"summaries"
	];
	ForeignDatabase = class extends Error {};
	SLEEP = new Int32Array(new SharedArrayBuffer(4));
}));
// dist/src/cache/folds.js
function encodeGens(gens) {
	const out = Buffer.allocUnsafe(gens.size * 8);
	let o = 0;
	for (const [id, gen] of gens) {
		out.writeUInt32LE(id, o);
		out.writeUInt32LE(gen, o + 4);
		o += 8;
	}
	return out;
}
function decodeGens(b) {
	if (b.length % 8 !== 0) throw new RangeError("not a gens list");
	const out = /* @__PURE__ */ new Map();
	for (let o = 0; o < b.length; o += 8) out.set(b.readUInt32LE(o), b.readUInt32LE(o + 4));
	return out;
}
/** The random id of a cache database (`meta.instance`). */
function cacheInstance(db) {
	return db.prepare("SELECT value FROM meta WHERE key = 'instance'").pluck().get() ?? "";
}
var USED_AT_GRAIN_MS, FoldSnapshots;
var init_folds = __esmMin((() => {
	init_db();
	USED_AT_GRAIN_MS = 6e4;
	FoldSnapshots = class FoldSnapshots {
		instance;
		#db;
		constructor(db) {
			this.#db = db;
			FoldSnapshots.#heal(db);
			this.instance = cacheInstance(db);
		}
		/** The columns `folds` must have; a table of another shape (a development build's) is dropped and made anew. */
		static #COLUMNS = [
			"key",
			"version",
			"chunk_count",
			"used_at",
			"gens",
			"prices",
			"summary",
			"header",
			"changes",
			"stats"
		];
		/** Snapshots are disposable: fold tables of another shape are replaced (their snapshots lost, nothing else). */
		static #heal(db) {
			const columns = () => db.prepare("SELECT name FROM pragma_table_info('folds')").pluck().all().join(",");
			if (columns() === FoldSnapshots.#COLUMNS.join(",")) return;
			db.transaction(() => {
				if (columns() === FoldSnapshots.#COLUMNS.join(",")) return;
				db.exec("DROP TABLE IF EXISTS folds; DROP TABLE IF EXISTS fold_chunks;");
				db.exec(FOLDS_SCHEMA);
			}).immediate();
		}
		static open(path, warn) {
			return new FoldSnapshots(openCacheDb(path, warn).db);
		}
		/** The snapshot stored under `key`, if any (its use time is refreshed). */
		get(key) {
			const snap = this.#db.transaction(() => {
				const row = this.#db.prepare("SELECT version, used_at, gens, prices, summary, changes, stats FROM folds WHERE key = ?").get(key);
				if (row === void 0) return void 0;
				return {
					gens: decodeGens(row.gens),
					prices: row.prices,
					summary: row.summary,
					version: row.version,
					changesThen: row.changes,
					changesNow: this.changes(),
					stats: row.stats,
					usedAt: row.used_at
				};
			})();
			if (snap === void 0) return void 0;
			const now = Date.now();
			if (now - snap.usedAt > USED_AT_GRAIN_MS) try {
				this.#db.prepare("UPDATE folds SET used_at = ? WHERE key = ?").run(now, key);
			} catch {}
			const { usedAt: _, ...out } = snap;
			return out;
		}
		/** `meta.changes`: the writes to the event cache's `files` so far. */
		changes() {
			return Number(this.#db.prepare("SELECT value FROM meta WHERE key = 'changes'").pluck().get() ?? -1);
		}
		/** The header and hash pieces of `key` at `version`; undefined when another process stored a newer one meanwhile. */
		state(key, version) {
			return this.#db.transaction(() => {
				const row = this.#db.prepare("SELECT chunk_count, header FROM folds WHERE key = ? AND version = ?").get(key, version);
				if (row === void 0) return void 0;
				const hashes = this.#db.prepare("SELECT data FROM fold_chunks WHERE key = ? AND seq < ? AND seq % 2 = 0 ORDER BY seq").pluck().all(key, row.chunk_count);
				return {
					header: row.header,
					hashes
				};
			})();
		}
		/** The piece `seq` of `key` at `version`; undefined when another process stored a newer one meanwhile. */
		piece(key, version, seq) {
			return this.#db.prepare("SELECT c.data FROM fold_chunks c JOIN folds f ON f.key = c.key WHERE c.key = ? AND c.seq = ? AND f.version = ?").pluck().get(key, seq, version);
		}
		/**
		* Store the snapshot of `key` (all pieces, or with `baseVersion` the changed ones) and drop the least
		* recently used beyond MAX_FOLD_SNAPSHOTS. False when `baseVersion` no longer matches (another process
		* stored one meanwhile): nothing is written, the caller writes the whole state instead.
		*/
		put(key, w) {
			return this.#db.transaction(() => {
				const current = this.#db.prepare("SELECT version FROM folds WHERE key = ?").pluck().get(key);
				if (w.baseVersion !== void 0 && current !== w.baseVersion) return false;
				const now = Date.now();
				if (!("header" in w)) {
					this.#db.prepare("UPDATE folds SET version = version + 1, used_at = ?, gens = ?, changes = ?, stats = ? WHERE key = ?").run(now, encodeGens(w.gens), w.changes, w.stats, key);
					return true;
				}
				if (w.baseVersion === void 0) this.#db.prepare("DELETE FROM fold_chunks WHERE key = ?").run(key);
				else this.#db.prepare("DELETE FROM fold_chunks WHERE key = ? AND seq >= ?").run(key, w.seqCount);
				const insert = this.#db.prepare("INSERT OR REPLACE INTO fold_chunks (key, seq, data) VALUES (?, ?, ?)");
				for (const [seq, encode] of w.pieces) insert.run(key, seq, encode());
				this.#db.prepare("INSERT OR REPLACE INTO folds (key, version, chunk_count, used_at, gens, prices, summary, header, changes, stats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)").run(key, (current ?? 0) + 1, w.seqCount, now, encodeGens(w.gens), w.prices, w.summary, w.header, w.changes, w.stats);
				const stale = this.#db.prepare("SELECT key FROM folds ORDER BY used_at DESC, key LIMIT -1 OFFSET ?").pluck().all(8);
				for (const k of stale) this.#deleteKey(k);
				return true;
			}).immediate();
		}
		#deleteKey(key) {
			this.#db.prepare("DELETE FROM folds WHERE key = ?").run(key);
			this.#db.prepare("DELETE FROM fold_chunks WHERE key = ?").run(key);
		}
		/** Drop the snapshot of `key` (it did not decode). */
		delete(key) {
			this.#db.transaction(() => this.#deleteKey(key)).immediate();
		}
		close() {
			if (this.#db.open) this.#db.close();
		}
	};
}));
// dist/src/cache/store.js
/** Records as one segment (null for none). */
function encodeRecords(records) {
	if (records.length === 0) return null;
	const w = new SegmentWriter();
	for (const r of records) w.add(r);
	return toBuffer(w.finish());
}
function toBuffer(u) {
	return Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}
function fileKey(agent, path) {
	return `${agent}\0${path}`;
}
var ROW_COLUMNS, BULK_COLUMNS, EventCache;
var init_store$1 = __esmMin((() => {
	init_segment();
	init_record_diff();
	init_db();
	init_folds();
	ROW_COLUMNS = "id, agent, path, root, parser, size, mtime_ms, deps, cursor IS NOT NULL AS has_cursor, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen";
	BULK_COLUMNS = "id, agent, path, root, parser, size, mtime_ms, deps, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen";
	EventCache = class EventCache {
		path;
		/** A corrupt or foreign file was moved aside and this cache built fresh. */
		rebuilt;
		#db;
		#s;
		#readTx;
		#applyTx;
		#deleteTx;
		constructor(path, db, rebuilt) {
			this.path = path;
			this.#db = db;
			this.rebuilt = rebuilt;
			this.#readTx = db.transaction((ids) => this.#readFiles(ids));
			this.#applyTx = db.transaction((results) => {
				const out = results.map((r) => this.#applyOne(r));
				if (out.some((o) => o.ok)) this.#countChange();
				return out;
			});
			this.#deleteTx = db.transaction((rows, now) => {
				this.#countChange();
				for (const r of rows) {
					const gen = this.#s.markDeleted.get(now, r.id);
					if (gen !== void 0) this.#logChange(r.id, gen, null, []);
				}
			});
			this.#s = {
				byAgent: db.prepare(`SELECT ${BULK_COLUMNS} FROM files WHERE agent = ?`).raw(),
				byPath: db.prepare(`SELECT ${ROW_COLUMNS} FROM files WHERE agent = ? AND path = ?`),
				byId: db.prepare(`SELECT ${ROW_COLUMNS} FROM files WHERE id = ?`),
				ledger: db.prepare("SELECT ledger FROM files WHERE id = ?").pluck(),
				cursor: db.prepare("SELECT cursor FROM files WHERE id = ?").pluck(),
				bulkRows: db.prepare(`SELECT id, path, cwd, deleted, ledger_count, ledger FROM files WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`),
				bulkSegments: db.prepare("SELECT file_id, data FROM segments WHERE file_id IN (SELECT value FROM json_each(?)) ORDER BY file_id, seq").raw(),
				segments: db.prepare("SELECT data FROM segments WHERE file_id = ? ORDER BY seq").pluck(),
				segmentCountsDesc: db.prepare("SELECT seq, count FROM segments WHERE file_id = ? ORDER BY seq DESC"),
				segmentData: db.prepare("SELECT data FROM segments WHERE file_id = ? AND seq = ?").pluck(),
				maxSeq: db.prepare("SELECT max(seq) FROM segments WHERE file_id = ?").pluck(),
				deleteSegments: db.prepare("DELETE FROM segments WHERE file_id = ?"),
				deleteSegment: db.prepare("DELETE FROM segments WHERE file_id = ? AND seq = ?"),
				insertSegment: db.prepare("INSERT INTO segments (file_id, seq, count, data) VALUES (?, ?, ?, ?)"),
				replaceSegment: db.prepare("UPDATE segments SET count = ?, data = ? WHERE file_id = ? AND seq = ?"),
				insertFile: db.prepare(`INSERT INTO files (agent, path, root, parser, size, mtime_ms, deps, cursor, prefix_hash, session_events, cwd_index, cwd,
           live_count, segment_count, ledger, ledger_count, deleted, gen, updated_at)
         VALUES (@agent, @path, @root, @parser, @size, @mtime_ms, @deps, @cursor, @prefix_hash, @session_events, @cwd_index, @cwd,
           @live_count, @segment_count, @ledger, @ledger_count, 0, 1, @updated_at) RETURNING id`),
				updateFile: db.prepare(`UPDATE files SET root = @root, parser = @parser, size = @size, mtime_ms = @mtime_ms, deps = @deps, cursor = @cursor,
           prefix_hash = @prefix_hash, session_events = @session_events, cwd_index = @cwd_index, cwd = @cwd, live_count = @live_count,
           segment_count = @segment_count, ledger = @ledger, ledger_count = @ledger_count, deleted = 0, gen = gen + 1,
           updated_at = @updated_at
         WHERE id = @id`),
				markDeleted: db.prepare("UPDATE files SET deleted = 1, gen = gen + 1, updated_at = ? WHERE id = ? AND deleted = 0 RETURNING gen").pluck(),
				insertChange: db.prepare("INSERT OR REPLACE INTO file_changes (file_id, gen, removed, added) VALUES (?, ?, ?, ?)"),
				pruneChanges: db.prepare("DELETE FROM file_changes WHERE file_id = ? AND gen <= ?"),
				clearChanges: db.prepare("DELETE FROM file_changes WHERE file_id = ?"),
				countChange: db.prepare("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes'"),
				changes: db.prepare("SELECT gen, removed, added FROM file_changes WHERE file_id = ? AND gen > ? AND gen <= ? ORDER BY gen")
			};
		}
		/** Open (or create, or rebuild) the cache at `path`. */
		static open(path, warn) {
			const { db, rebuilt } = openCacheDb(path, warn);
			return new EventCache(path, db, rebuilt);
		}
		close() {
			if (this.#db.open) this.#db.close();
		}
		/** Writes this connection counted in `meta.changes` (committed or not: a rolled-back one throws). */
		writes = 0;
		#countChange() {
			this.#s.countChange.run();
			this.writes++;
		}
		/** The random id of this database (`meta.instance`). */
		instance() {
			return cacheInstance(this.#db);
		}
		/** Every cached file of these agents, keyed `agent\0path`. */
		loadFiles(agents) {
			const out = /* @__PURE__ */ new Map();
			for (const a of agents) for (const [id, agent, path, root, parser, size, mtime_ms, deps, prefix_hash, session_events, cwd_index, cwd, live_count, segment_count, ledger_count, deleted, gen] of this.#s.byAgent.all(a)) {
				const r = {
					id,
					agent,
					path,
					root,
					parser,
					size,
					mtime_ms,
					deps,
					has_cursor: -1,
					prefix_hash,
					session_events,
					cwd_index,
					cwd,
					live_count,
					segment_count,
					ledger_count,
					deleted,
					gen
				};
				out.set(fileKey(agent, path), r);
			}
			return out;
		}
		getFile(agent, path) {
			return this.#s.byPath.get(agent, path);
		}
		/** The stored cursor (JSON) of a file, if any. */
		getCursor(id) {
			return this.#s.cursor.get(id) ?? null;
		}
		/**
		* The records of cached files (live usage, then ledger), read in one transaction with two statements for
		* the whole batch, so each file's row and segments agree. Files gone from the cache are skipped.
		*/
		readFiles(rows) {
			return this.#readTx(JSON.stringify(rows.map((r) => r.id)));
		}
		#readFiles(ids) {
			const out = [];
			let retained = 0;
			const files = /* @__PURE__ */ new Map();
			for (const f of this.#s.bulkRows.all(ids)) files.set(f.id, f);
			for (const [fileId, data] of this.#s.bulkSegments.all(ids)) {
				const f = files.get(fileId);
				if (f === void 0) continue;
				const seg = decodeSegment(data);
				pushRecords(seg, f.path, f.cwd ?? void 0, f.deleted !== 0, out);
				if (f.deleted !== 0) retained += seg.count;
			}
			for (const f of files.values()) {
				if (f.ledger_count === 0 || f.ledger === null) continue;
				const seg = decodeSegment(f.ledger);
				pushRecords(seg, f.path, f.cwd ?? void 0, true, out);
				retained += seg.count;
			}
			return {
				records: out,
				retained
			};
		}
		/** Mark files deleted from disk (their usage stays, as retained records). */
		markDeleted(rows) {
			if (rows.length === 0) return;
			this.#deleteTx.immediate(rows, Date.now());
		}
		/** Apply finished parses in one IMMEDIATE transaction; returns, per result, the file's records or a conflict. */
		apply(results) {
			return this.#applyTx.immediate(results);
		}
		#applyOne(r) {
			const row = this.#s.byPath.get(r.agent, r.path);
			if ((row?.gen ?? null) !== r.baseGen) return { ok: false };
			const cwd = r.track.cwd ?? void 0;
			const newCount = r.segments.reduce((n, s) => n + segmentCount(s), 0);
			const out = [];
			const values = {
				agent: r.agent,
				path: r.path,
				root: r.root,
				parser: r.parser,
				size: r.size,
				mtime_ms: r.mtimeMs,
				deps: r.deps,
				cursor: r.cursor,
				prefix_hash: r.prefixHash,
				session_events: r.track.events,
				cwd_index: r.track.cwdIndex,
				cwd: r.track.cwd,
				updated_at: Date.now()
			};
			const delta = r.delta === true && row !== void 0;
			const removed = [];
			if (row === void 0 || r.start.restarted) {
				const decoded = r.segments.map((s) => decodeSegment(s));
				let ledger = null;
				let ledgerCount = 0;
				const before = [];
				if (row !== void 0) {
					this.#pushFile(row, before);
					({ledger, ledgerCount} = this.#ledgerAfterRestart(row, r, decoded));
					this.#s.deleteSegments.run(row.id);
				}
				const fields = {
					...values,
					live_count: newCount,
					segment_count: r.segments.length,
					ledger: ledger && toBuffer(ledger),
					ledger_count: ledgerCount
				};
				let id;
				if (row === void 0) id = this.#s.insertFile.get(fields).id;
				else {
					id = row.id;
					this.#s.updateFile.run({
						...fields,
						id
					});
				}
				r.segments.forEach((s, i) => this.#s.insertSegment.run(id, i, segmentCount(s), toBuffer(s)));
				for (const seg of decoded) pushRecords(seg, r.path, cwd, false, out);
				if (ledger !== null) pushRecords(decodeSegment(ledger), r.path, cwd, true, out);
				if (row === void 0) return {
					ok: true,
					records: out,
					retained: ledgerCount,
					id,
					gen: 1
				};
				const d = diffRecords(before, out);
				if ((row.cwd ?? null) === (r.track.cwd ?? null) && d.added.length + d.removed.length <= 2e4) this.#logChange(id, row.gen + 1, encodeRecords(d.removed), d.added.length > 0 ? [encodeRecords(d.added)] : []);
				else this.#s.clearChanges.run(id);
				if (delta) return {
					ok: true,
					records: d.added,
					retained: 0,
					removed: d.removed,
					id,
					gen: row.gen + 1
				};
				return {
					ok: true,
					records: out,
					retained: ledgerCount,
					id,
					gen: row.gen + 1
				};
			}
			const newGen = row.gen + 1;
			const whole = (row.cwd ?? null) !== (r.track.cwd ?? null);
			const before = [];
			if (whole) this.#pushFile(row, before);
			const gone = whole ? void 0 : new SegmentWriter();
			const dropped = Math.min(r.start.replaced.usage ?? 0, row.live_count);
			let segCount = row.segment_count - this.#dropTail(row.id, dropped, gone);
			let seq = (this.#s.maxSeq.get(row.id) ?? -1) + 1;
			for (const s of r.segments) this.#s.insertSegment.run(row.id, seq++, segmentCount(s), toBuffer(s));
			segCount += r.segments.length;
			if (segCount > 32) segCount = this.#compact(row.id);
			let ledger = row.ledger_count > 0 ? this.#s.ledger.get(row.id) : null;
			let ledgerCount = row.ledger_count;
			if (ledger !== null && newCount > 0) {
				const keys = /* @__PURE__ */ new Set();
				for (const s of r.segments) {
					const seg = decodeSegment(s);
					for (let i = 0; i < seg.count; i++) keys.add(segmentKey(seg, i));
				}
				const old = decodeSegment(ledger);
				const w = new SegmentWriter();
				for (let i = 0; i < old.count; i++) if (!keys.has(segmentKey(old, i))) w.addFrom(old, i);
				else gone?.addFrom(old, i);
				ledgerCount = w.count;
				ledger = ledgerCount > 0 ? toBuffer(w.finish()) : null;
			}
			const live = row.live_count - dropped + newCount;
			this.#s.updateFile.run({
				...values,
				id: row.id,
				live_count: live,
				segment_count: segCount,
				ledger,
				ledger_count: ledgerCount
			});
			if (gone !== void 0) {
				const goneSeg = gone.count > 0 ? toBuffer(gone.finish()) : null;
				this.#logChange(row.id, newGen, goneSeg, r.segments);
				if (delta) {
					if (goneSeg !== null) pushRecords(decodeSegment(goneSeg), r.path, row.cwd ?? void 0, false, removed);
					for (const s of r.segments) pushRecords(decodeSegment(s), r.path, cwd, false, out);
					return {
						ok: true,
						records: out,
						retained: 0,
						removed,
						id: row.id,
						gen: newGen
					};
				}
			}
			for (const data of this.#s.segments.all(row.id)) pushRecords(decodeSegment(data), r.path, cwd, false, out);
			if (ledger !== null) pushRecords(decodeSegment(ledger), r.path, cwd, true, out);
			if (whole) {
				this.#s.clearChanges.run(row.id);
				if (delta) {
					const d = diffRecords(before, out);
					return {
						ok: true,
						records: d.added,
						retained: 0,
						removed: d.removed,
						id: row.id,
						gen: newGen
					};
				}
			}
			return {
				ok: true,
				records: out,
				retained: ledgerCount,
				id: row.id,
				gen: newGen
			};
		}
		/** Log what an update to `gen` did to a file's records (file_changes), keeping the last MAX_CHANGES_PER_FILE. */
		#logChange(fileId, gen, removed, added) {
			let addedBlob = null;
			if (added.length > 0) {
				addedBlob = Buffer.allocUnsafe(added.reduce((n, a) => n + 4 + a.byteLength, 0));
				let o = 0;
				for (const a of added) {
					addedBlob.writeUInt32LE(a.byteLength, o);
					addedBlob.set(a, o + 4);
					o += 4 + a.byteLength;
				}
			}
			this.#s.insertChange.run(fileId, gen, removed, addedBlob);
			this.#s.pruneChanges.run(fileId, gen - 64);
		}
		/**
		* What the updates of a file after `fromGen` up to its current gen did to its records, oldest first, from
		* the log; undefined when the log does not reach back that far (a rewrite, pruned entries).
		*/
		changesSince(row, fromGen) {
			if (fromGen >= row.gen || row.gen - fromGen > 64) return void 0;
			const rows = this.#s.changes.all(row.id, fromGen, row.gen);
			if (rows.length !== row.gen - fromGen) return void 0;
			const cwd = row.cwd ?? void 0;
			return rows.map((c) => {
				const removed = [];
				const added = [];
				if (c.removed !== null) pushRecords(decodeSegment(c.removed), row.path, cwd, false, removed);
				if (c.added !== null) for (let o = 0; o + 4 <= c.added.length;) {
					const n = c.added.readUInt32LE(o);
					pushRecords(decodeSegment(c.added.subarray(o + 4, o + 4 + n)), row.path, cwd, false, added);
					o += 4 + n;
				}
				return {
					added,
					removed
				};
			});
		}
		/** Every record a row holds now (live, then ledger), as read by `readFiles`. */
		#pushFile(row, out) {
			const cwd = row.cwd ?? void 0;
			for (const data of this.#s.segments.all(row.id)) pushRecords(decodeSegment(data), row.path, cwd, row.deleted !== 0, out);
			const ledger = row.ledger_count > 0 ? this.#s.ledger.get(row.id) : null;
			if (ledger !== null) pushRecords(decodeSegment(ledger), row.path, cwd, true, out);
		}
		/** The ledger after a read from byte 0: old ledger and (same parser) old live usage whose key is gone. */
		#ledgerAfterRestart(row, r, decoded) {
			const carry = row.parser === r.parser && row.live_count > 0;
			if (!carry && row.ledger_count === 0) return {
				ledger: null,
				ledgerCount: 0
			};
			const newKeys = /* @__PURE__ */ new Set();
			for (const seg of decoded) for (let i = 0; i < seg.count; i++) newKeys.add(segmentKey(seg, i));
			const pick = /* @__PURE__ */ new Map();
			const ledger = row.ledger_count > 0 ? this.#s.ledger.get(row.id) : null;
			if (ledger !== null) {
				const seg = decodeSegment(ledger);
				for (let i = 0; i < seg.count; i++) pick.set(segmentKey(seg, i), [seg, i]);
			}
			if (carry) for (const data of this.#s.segments.all(row.id)) {
				const seg = decodeSegment(data);
				for (let i = 0; i < seg.count; i++) pick.set(segmentKey(seg, i), [seg, i]);
			}
			const w = new SegmentWriter();
			for (const [key, [seg, i]] of pick) if (!newKeys.has(key)) w.addFrom(seg, i);
			const count = w.count;
			return count === 0 ? {
				ledger: null,
				ledgerCount: 0
			} : {
				ledger: w.finish(),
				ledgerCount: count
			};
		}
		/** Remove the last `n` live events of a file (copying them to `collect`); returns how many segments were deleted. */
		#dropTail(fileId, n, collect) {
			let left = n;
			let removed = 0;
			if (left <= 0) return 0;
			for (const s of this.#s.segmentCountsDesc.all(fileId)) {
				if (left <= 0) break;
				const seg = s.count <= left && !collect ? void 0 : decodeSegment(this.#s.segmentData.get(fileId, s.seq));
				if (s.count <= left) {
					if (collect && seg) for (let i = 0; i < seg.count; i++) collect.addFrom(seg, i);
					this.#s.deleteSegment.run(fileId, s.seq);
					left -= s.count;
					removed++;
				} else {
					const full = seg;
					const w = new SegmentWriter();
					for (let i = 0; i < full.count - left; i++) w.addFrom(full, i);
					if (collect) for (let i = full.count - left; i < full.count; i++) collect.addFrom(full, i);
					this.#s.replaceSegment.run(w.count, toBuffer(w.finish()), fileId, s.seq);
					left = 0;
				}
			}
			return removed;
		}
		/** Merge a file's segments into one; returns the segment count (0 or 1). */
		#compact(fileId) {
			const w = new SegmentWriter();
			for (const data of this.#s.segments.all(fileId)) {
				const seg = decodeSegment(data);
				for (let i = 0; i < seg.count; i++) w.addFrom(seg, i);
			}
			this.#s.deleteSegments.run(fileId);
			if (w.count === 0) return 0;
			this.#s.insertSegment.run(fileId, 0, w.count, toBuffer(w.finish()));
			return 1;
		}
	};
}));
// dist/src/scan/parse-file.js
/**
* One file → usage segments: the unit of work of the scan, run the same way on a worker thread and on the
* main thread (so the two paths give identical records by construction).
*
* - It reads kinds ['session', 'usage'] and tracks the file's session cwd: the cwd of the first session event
*   that has one. Usage is held back until that cwd is known (usually from the first line) or the file ends,
*   so every batch it posts carries the file's final cwd.
* - Cached reads resume from the stored cursor with `verifyPrefix: false`: the cache keeps its own xxh64
*   fingerprint of the cursor's prefix, verified here before the read and extended over the bytes the read
*   takes as it takes them (`onBytes`: no second read), re-read only when a read ends mid-line (xxh64 32 ms
*   vs sha256 88 ms per 100 MB on this machine; see docs/cache.md).
*/
function sharedHashBuffer() {
	hashBuffer ??= Buffer.allocUnsafeSlow(HASH_BUFFER);
	return hashBuffer;
}
function newSessionTrack() {
	return {
		events: 0,
		cwdIndex: null,
		cwd: null
	};
}
/** A resumed read re-yields the last `replaced.session` session events: forget a cwd that came from one. */
function dropReplacedSessions(track, replaced) {
	const keep = Math.max(0, track.events - (replaced.session ?? 0));
	if (track.cwdIndex !== null && track.cwdIndex >= keep) return {
		events: keep,
		cwdIndex: null,
		cwd: null
	};
	return {
		...track,
		events: keep
	};
}
/**
* Feed bytes [from, to) of an open file to `update`; returns how many there were. Synchronous on purpose:
* the bytes were just read (or are about to be) and sit in the page cache, and a libuv round trip per call
* cost more than the hashing when a scan fingerprints thousands of small files.
*/
function hashRange(fd, from, to, update, buf) {
	let pos = from;
	while (pos < to) {
		const bytesRead = readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
		if (bytesRead === 0) break;
		update(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
		pos += bytesRead;
	}
	return pos - from;
}
function serializeError(e) {
	if (e instanceof Error) return {
		name: e.name,
		code: isSessionfoldError(e) ? e.code : e.code,
		message: e.message
	};
	return {
		name: "Error",
		message: String(e)
	};
}
/** Parse one file, posting start / batch… / done (or error) messages. Never throws. */
async function parseFile(codec, task, post) {
	try {
		await run(codec, task, post);
	} catch (e) {
		post({
			type: "error",
			id: task.id,
			error: serializeError(e)
		});
	}
}
async function run(codec, task, post) {
	const info = newReadInfo();
	const writer = new SegmentWriter();
	const held = [];
	let track = task.track ?? newSessionTrack();
	let cwdKnown = false;
	let from = task.cursor;
	let startReason;
	let hasher;
	let bytesVerified = 0;
	if (task.resume && from?.format === "jsonl" && from?.format === "jsonl") {
		const fd = openSync(task.path, "r");
		try {
			const size = fstatSync(fd).size;
			if (task.prefixHash === void 0) {
				from = void 0;
				startReason = "no-cursor";
			} else if (size < from.offset) {
				from = void 0;
				startReason = "file-shrunk";
			} else {
				const h = createHash64();
				bytesVerified = hashRange(fd, 0, from.offset, (b) => h.update(b), sharedHashBuffer());
				if (bytesVerified !== from.offset || h.digest() !== task.prefixHash) {
					from = void 0;
					startReason = "prefix-changed";
				} else hasher = h;
			}
		} finally {
			closeSync(fd);
		}
	}
	const flush = (final) => {
		if (writer.count > 0) held.push(writer.finish());
		if (!cwdKnown && !final) return;
		const cwd = track.cwd ?? void 0;
		for (const data of held) post({
			type: "batch",
			id: task.id,
			data,
			cwd,
			bytes: info.bytes
		}, [data.buffer]);
		held.length = 0;
	};
	let start;
	let cursor;
	let partialLine = false;
	const onStart = (s) => {
		start = s.restarted && startReason !== void 0 && s.reason === "no-cursor" ? {
			...s,
			reason: startReason
		} : s;
		if (s.restarted) {
			track = newSessionTrack();
			hasher = void 0;
		} else track = dropReplacedSessions(track, s.replaced);
		cwdKnown = track.cwd !== null;
		post({
			type: "start",
			id: task.id,
			start
		});
	};
	const ensureStart = () => {
		if (start === void 0) onStart({
			restarted: true,
			reason: "no-cursor",
			replaced: {}
		});
	};
	if (!task.resume) ensureStart();
	let stream;
	const onBytes = (chunk, position) => {
		if (stream === void 0 || position !== stream.next) {
			if (position === 0) stream = {
				h: createHash64(),
				next: 0
			};
			else if (hasher !== void 0 && from?.format === "jsonl" && position === from.offset && stream === void 0) stream = {
				h: hasher,
				next: position
			};
			else {
				stream = void 0;
				return;
			}
		}
		stream.h.update(chunk);
		stream.next += chunk.byteLength;
	};
	for await (const e of codec.read(task.path, {
		kinds: ["session", "usage"],
		info,
		resume: task.resume ? {
			from,
			verifyPrefix: false,
			onStart,
			onCursor: (u) => {
				cursor = u.cursor;
				partialLine = u.partialLine;
			},
			onBytes
		} : void 0
	})) {
		if (start === void 0) ensureStart();
		if (e.type === "usage") {
			writer.add(e);
			if (writer.count >= 4096) flush(false);
		} else if (e.type === "session") {
			const cwd = e.cwd;
			if (track.cwdIndex === null && typeof cwd === "string") {
				track = {
					events: track.events + 1,
					cwdIndex: track.events,
					cwd
				};
				cwdKnown = true;
				flush(false);
			} else track = {
				...track,
				events: track.events + 1
			};
		}
	}
	ensureStart();
	flush(true);
	let prefixHash;
	if (cursor?.format === "jsonl" && stream !== void 0 && stream.next === cursor.offset && (start?.restarted !== false || stream.h === hasher)) prefixHash = stream.h.digest();
	else if (cursor?.format === "jsonl") {
		const fd = openSync(task.path, "r");
		try {
			const resumedFrom = !start?.restarted && from?.format === "jsonl" ? from.offset : 0;
			const usable = hasher !== void 0 && stream?.h !== hasher;
			const h = resumedFrom > 0 && usable ? hasher : createHash64();
			const begin = h === hasher ? resumedFrom : 0;
			const want = cursor.offset - begin;
			prefixHash = hashRange(fd, begin, cursor.offset, (b) => h.update(b), sharedHashBuffer()) === want ? h.digest() : void 0;
		} finally {
			closeSync(fd);
		}
	}
	post({
		type: "done",
		id: task.id,
		cursor,
		prefixHash,
		partialLine,
		info,
		track,
		bytesVerified
	});
}
/** True when a task error means the file is gone. */
function isMissingFileError(e) {
	return e.code === "SESSION_NOT_FOUND" || e.code === "ENOENT";
}
var HASH_BUFFER, hashBuffer;
var init_parse_file = __esmMin((async () => {
	init_codec();
	init_errors();
	await init_ids$1();
	init_segment();
	HASH_BUFFER = 1 << 20;
}));
// dist/src/scan/pool.js
/**
* The parse pool: ParseTasks run on worker threads, largest first, each worker holding at most
* PREFETCH tasks so that none idles while the main thread is busy folding (and the longest file starts
* first, which bounds the makespan: greedy LPT scheduling). Tasks of codecs a worker cannot load (plugins
* registered at run time) and every task of a 0-size pool run on the main thread through the same
* `parseFile`, so both paths post identical messages.
*
* Back-pressure: a task is dispatched only while `canDispatch()` holds (the consumer's queue is short); the
* consumer calls `pump()` as it drains.
*/
var PREFETCH, WORKER_YOUNG_GENERATION_MB, WORKER_URL, ParsePool, AsyncQueue;
var init_pool = __esmMin((async () => {
	await init_parse_file();
	PREFETCH = 2;
	WORKER_YOUNG_GENERATION_MB = 4;
	WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./worker-dev.mjs" : "./worker.js", import.meta.url);
	ParsePool = class {
		#opts;
		#slots = [];
		#queue = [];
		#inline = [];
		#inlineRunning = false;
		#closed = false;
		constructor(options) {
			this.#opts = options;
		}
		/** Worker threads started. */
		get workers() {
			return this.#slots.length;
		}
		/** Queue tasks (sorted largest first) and start dispatching. */
		add(tasks) {
			for (const t of tasks) if (this.#opts.size > 0 && this.#opts.codecOf(t).onWorker) this.#queue.push(t);
			else this.#inline.push(t);
			this.#queue.sort((a, b) => b.weight - a.weight);
			this.#inline.sort((a, b) => b.weight - a.weight);
			const want = Math.min(this.#opts.size, this.#slots.length + this.#queue.length);
			while (this.#slots.length < want) this.#slots.push(this.#spawn());
			this.pump();
		}
		#spawn() {
			const worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } });
			const slot = {
				worker,
				inflight: 0
			};
			worker.on("message", (msg) => {
				if (msg.type === "done" || msg.type === "error") slot.inflight--;
				this.#opts.onMessage(msg);
				if (msg.type === "done" || msg.type === "error") this.pump();
			});
			worker.on("error", (e) => {
				if (!this.#closed) this.#opts.onFatal(e);
			});
			worker.on("exit", (code) => {
				if (!this.#closed && slot.inflight > 0) this.#opts.onFatal(/* @__PURE__ */ new Error(`scan worker exited with code ${code} with ${slot.inflight} task(s) in flight`));
			});
			return slot;
		}
		/** Dispatch while there is room. */
		pump() {
			if (this.#closed) return;
			for (let round = 0; round < PREFETCH && this.#queue.length > 0; round++) for (const slot of this.#slots) {
				if (this.#queue.length === 0 || !this.#opts.canDispatch()) break;
				if (slot.inflight > round) continue;
				const task = this.#queue.shift();
				slot.inflight++;
				slot.worker.postMessage(task);
			}
			this.#steal();
			if (this.#inline.length > 0 && !this.#inlineRunning && this.#opts.canDispatch()) this.#runInline();
		}
		/**
		* The main thread helps: when it has nothing of its own to parse, it takes the smallest queued task (workers
		* take from the largest end), as long as the workers still have more than their prefetch waiting. Workers
		* need ~100–150 ms each to start (module loading); without this, a history of a few hundred MB parsed on
		* two workers took 1.6x the main thread alone (bench/RESULTS.md).
		*/
		#steal(fromRunner = false) {
			if (this.#inline.length > 0 || this.#inlineRunning && !fromRunner || this.#closed) return;
			if (this.#queue.length <= this.#slots.length * PREFETCH || !this.#opts.canDispatch()) return;
			this.#inline.push(this.#queue.pop());
		}
		async #runInline() {
			this.#inlineRunning = true;
			try {
				while (!this.#closed && this.#opts.canDispatch()) {
					if (this.#inline.length === 0) this.#steal(true);
					const task = this.#inline.shift();
					if (task === void 0) break;
					await parseFile(this.#opts.codecOf(task).codec, task, (msg) => this.#opts.onMessage(msg));
					await new Promise((r) => setImmediate(r));
				}
			} finally {
				this.#inlineRunning = false;
			}
		}
		/** Stop: terminate the workers (tasks still in flight are abandoned). */
		async close() {
			this.#closed = true;
			this.#queue = [];
			this.#inline = [];
			await Promise.all(this.#slots.map((s) => s.worker.terminate()));
			this.#slots.length = 0;
		}
	};
	AsyncQueue = class {
		#items = [];
		#head = 0;
		#waiter;
		get size() {
			return this.#items.length - this.#head;
		}
		push(item) {
			this.#items.push(item);
			const w = this.#waiter;
			this.#waiter = void 0;
			w?.();
		}
		/** Wake a pending `next()` without an item (it returns undefined). */
		wake() {
			const w = this.#waiter;
			this.#waiter = void 0;
			w?.();
		}
		/** The next item, waiting for one; undefined when woken without one. */
		async next() {
			if (this.size === 0) await new Promise((r) => this.#waiter = r);
			if (this.size === 0) return void 0;
			const item = this.#items[this.#head];
			this.#items[this.#head++] = void 0;
			if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
				this.#items = this.#items.slice(this.#head);
				this.#head = 0;
			}
			return item;
		}
	};
}));
// dist/src/scan/runner.js
var HIGH_WATER, TaskRunner;
var init_runner = __esmMin((async () => {
	await init_builtin_codecs();
	await init_pool();
	HIGH_WATER = 256;
	TaskRunner = class {
		#queue = new AsyncQueue();
		#pool;
		#opts;
		#codecs;
		#remaining = 0;
		#total = 0;
		#finished = 0;
		#partial = /* @__PURE__ */ new Map();
		#partialSum = 0;
		constructor(opts, size) {
			this.#opts = opts;
			this.#codecs = new Map(opts.sources.map((s) => [s.codec.id, s.codec]));
			this.#pool = new ParsePool({
				size,
				codecOf: (task) => {
					const codec = this.#codecs.get(task.agent);
					return {
						codec,
						onWorker: BUILTIN_CODECS.includes(codec)
					};
				},
				onMessage: (m) => this.#queue.push(m),
				onFatal: (error) => this.#queue.push({
					type: "fatal",
					error
				}),
				canDispatch: () => this.#queue.size < HIGH_WATER
			});
		}
		/** Worker threads running. */
		get workers() {
			return this.#pool.workers;
		}
		add(tasks) {
			if (tasks.length === 0) return;
			this.#remaining += tasks.length;
			for (const t of tasks) this.#total += t.weight;
			this.#pool.add(tasks);
			this.#progress();
		}
		/** The next message, or undefined once every task has finished. Throws when a worker died. */
		async next() {
			if (this.#remaining === 0 && this.#queue.size === 0) return void 0;
			const m = await this.#queue.next();
			this.#pool.pump();
			if (m.type === "fatal") throw m.error;
			if (m.type === "batch") this.#setPartial(m.id, m.bytes);
			else if (m.type === "done" || m.type === "error") {
				this.#remaining--;
				this.#setPartial(m.id, 0);
				if (m.type === "done") this.#finished += m.info.bytes;
				this.#progress();
			}
			return m;
		}
		#setPartial(id, bytes) {
			this.#partialSum += bytes - (this.#partial.get(id) ?? 0);
			if (bytes === 0) this.#partial.delete(id);
			else this.#partial.set(id, bytes);
		}
		#progress() {
			const cb = this.#opts.onProgress;
			if (cb === void 0) return;
			const done = this.#finished + this.#partialSum;
			cb(done, Math.max(done, this.#total));
		}
		async close() {
			await this.#pool.close();
		}
	};
}));
// dist/src/scan/streaming.js
async function* scanStreaming(opts, files) {
	const stats = opts.stats;
	const tasks = files.map((f, id) => ({
		id,
		agent: f.codec.id,
		path: f.path,
		weight: f.size,
		resume: false
	}));
	const runner = new TaskRunner(opts, resolveWorkers(opts.workers, tasks.length, tasks.reduce((n, t) => n + t.weight, 0)));
	try {
		runner.add(tasks);
		stats.workers = runner.workers;
		for (let m = await runner.next(); m !== void 0; m = await runner.next()) if (m.type === "batch") {
			const out = [];
			pushRecords(decodeSegment(m.data), files[m.id].path, m.cwd, false, out);
			stats.records += out.length;
			yield out;
		} else if (m.type === "done") {
			stats.fullReads++;
			stats.bytesRead += m.info.bytes;
			stats.skippedLines += m.info.skippedLines;
		} else if (m.type === "error" && !isMissingFileError(m.error)) {
			stats.failed++;
			opts.onWarning(`Cannot read ${files[m.id].path}: ${m.error.message}`);
		}
	} finally {
		await runner.close();
	}
}
var init_streaming = __esmMin((async () => {
	await init_options();
	await init_parse_file();
	await init_runner();
	init_segment();
}));
// dist/src/scan/cached.js
/**
* The cached scan. Each discovered file is classified against its cached row:
*
* - unchanged (same size, mtimeMs, dependency fingerprints and parser string): its usage comes from the
*   cache, the file is not opened;
* - grown or touched, same parser and dependencies, with a cursor: a task resumes from the cursor (only the
*   appended bytes are parsed, after the cache's own prefix fingerprint is verified);
* - anything else (new, parser or dependencies changed, no cursor): a task reads it from byte 0.
*
* Cached files under the scanned roots that are gone from disk are marked deleted and their usage is still
* yielded, as `retained` records (`retainDeleted`). Finished parses are applied in batches, one transaction
* each; a file another process updated meanwhile is classified again against the new row.
*/
function isUnchanged(f, row, parser) {
	return row !== void 0 && row.deleted === 0 && row.parser === parser && row.size === f.size && row.mtime_ms === f.mtimeMs && row.deps === f.deps;
}
function makeTask(cache, id, f, row, parser, noWrite) {
	const resume = f.codec.capabilities.incremental && !noWrite;
	let cursor;
	if (resume && row !== void 0 && row.parser === parser && row.deps === f.deps && row.has_cursor !== 0) {
		try {
			cursor = JSON.parse(cache.getCursor(row.id) ?? "null");
		} catch {
			cursor = void 0;
		}
		if (cursor === null || typeof cursor !== "object") cursor = void 0;
		if (cursor?.format === "jsonl" && row.prefix_hash === null) cursor = void 0;
	}
	if (cursor === void 0) return {
		id,
		agent: f.codec.id,
		path: f.path,
		weight: f.size,
		resume
	};
	return {
		id,
		agent: f.codec.id,
		path: f.path,
		weight: cursor.format === "jsonl" ? Math.max(0, f.size - cursor.offset) : f.size,
		resume,
		cursor,
		prefixHash: row?.prefix_hash ?? void 0,
		track: {
			events: row?.session_events ?? 0,
			cwdIndex: row?.cwd_index ?? null,
			cwd: row?.cwd ?? null
		}
	};
}
/** Open the cache and load the selected agents' rows; corruption found while loading is a rebuild too. */
function openAndLoad(opts) {
	const agents = opts.sources.map((s) => s.codec.id);
	let cache = EventCache.open(opts.cachePath, opts.onWarning);
	try {
		return {
			cache,
			rows: cache.loadFiles(agents)
		};
	} catch (e) {
		cache.close();
		if (!isCorruptionError(e)) throw e;
		const aside = moveAside(opts.cachePath);
		opts.onWarning(`The event cache ${opts.cachePath} is corrupt (${e.message}): moved it aside${aside ? ` to ${aside}` : ""} and rebuilt it.`);
		cache = EventCache.open(opts.cachePath, opts.onWarning);
		cache.rebuilt = true;
		return {
			cache,
			rows: cache.loadFiles(agents)
		};
	}
}
/** Rows in read chunks of at most `maxFiles` files, closed once they hold `maxEvents` events. */
function* chunks(rows, maxFiles, maxEvents) {
	let chunk = [];
	let events = 0;
	for (const row of rows) {
		chunk.push(row);
		events += row.live_count + row.ledger_count;
		if (chunk.length >= maxFiles || events >= maxEvents) {
			yield chunk;
			chunk = [];
			events = 0;
		}
	}
	if (chunk.length > 0) yield chunk;
}
async function* scanCached(opts, discovery) {
	const stats = opts.stats;
	let opened;
	try {
		opened = openAndLoad(opts);
	} catch (e) {
		opts.onWarning(`${e.message}; reading without the event cache.`);
		stats.cache = "off";
		if (opts.delta) opts.delta.exact = false;
		yield* scanStreaming(opts, discovery.files);
		return;
	}
	const { cache, rows } = opened;
	stats.cache = cache.rebuilt ? "rebuilt" : "used";
	const guard = (fn) => {
		try {
			return fn();
		} catch (e) {
			if (isCorruptionError(e)) {
				cache.close();
				const aside = moveAside(opts.cachePath);
				throw new SessionfoldError("CACHE_ERROR", `The event cache ${opts.cachePath} is corrupt${aside ? ` (moved aside to ${aside})` : ""}; run again to rebuild it.`, {
					file: opts.cachePath,
					cause: e
				});
			}
			if (e instanceof SessionfoldError) throw e;
			throw new SessionfoldError("CACHE_ERROR", `Event cache ${opts.cachePath}: ${e.message}`, {
				file: opts.cachePath,
				cause: e
			});
		}
	};
	let delta = opts.delta;
	if (delta) {
		const used = guard(() => cache.instance());
		delta.usedInstance = used;
		if (cache.rebuilt || delta.instance !== void 0 && delta.instance !== used) {
			delta.exact = false;
			delta = void 0;
		}
	}
	/**
	* Incremental scans: what the consumer's state holds of a cached row. undefined: nothing (serve the row
	* whole); []: every record at the row's gen; steps: an older gen, and these logged updates bring it up to
	* date. A row it holds at a gen the log cannot bridge makes the scan not exact.
	*/
	const held = (row) => {
		if (delta === void 0) return void 0;
		const g = delta.covered.get(row.id);
		if (g === void 0) return void 0;
		if (g === row.gen) return [];
		const steps = g < row.gen ? guard(() => cache.changesSince(row, g)) : void 0;
		if (steps === void 0) delta.exact = false;
		return steps;
	};
	/** Logged updates to fold in before the cached files are served. */
	const catchUps = [];
	/** Classify a cached row to serve: whole, not at all, or through its logged updates. */
	const serveRow = (row, serve, gen = row.gen) => {
		const steps = held(row);
		delta?.gens.set(row.id, gen);
		if (steps === void 0) serve.push(row);
		else if (steps.length > 0) catchUps.push(steps);
	};
	let runner;
	try {
		const parsers = new Map(opts.sources.map((s) => [s.codec, getParserString(s.codec)]));
		const serve = [];
		const states = /* @__PURE__ */ new Map();
		let nextId = 0;
		for (const f of discovery.files) {
			const parser = parsers.get(f.codec);
			const row = rows.get(fileKey(f.codec.id, f.path));
			if (isUnchanged(f, row, parser)) {
				serveRow(row, serve);
				stats.unchanged++;
				continue;
			}
			const task = guard(() => makeTask(cache, nextId++, f, row, parser, false));
			states.set(task.id, {
				task,
				file: f,
				row,
				attempts: 0,
				noWrite: false,
				segments: [],
				events: 0
			});
		}
		const gone = [];
		for (const { codec, roots } of opts.sources) {
			const seen = discovery.seen.get(codec.id) ?? /* @__PURE__ */ new Set();
			const skipOld = opts.since !== void 0 && codec.capabilities.eventsPrecedeMtime === true;
			for (const row of rows.values()) {
				if (row.agent !== codec.id || seen.has(row.path) || !roots.includes(row.root)) continue;
				if (statSync(row.path, { throwIfNoEntry: false }) !== void 0) continue;
				if (row.deleted === 0) gone.push(row);
				if (opts.retainDeleted && !(skipOld && row.mtime_ms < opts.since)) {
					serveRow(row, serve, row.deleted === 0 ? row.gen + 1 : row.gen);
					stats.deleted++;
				}
			}
		}
		guard(() => cache.markDeleted(gone));
		const tasks = [...states.values()].map((s) => s.task);
		runner = new TaskRunner(opts, resolveWorkers(opts.workers, tasks.length, tasks.reduce((n, t) => n + t.weight, 0)));
		runner.add(tasks);
		stats.workers = runner.workers;
		for (const steps of catchUps.splice(0)) yield* emitNet(steps);
		for (const chunk of chunks(serve, READ_CHUNK_FILES, READ_CHUNK_EVENTS)) {
			const { records, retained } = guard(() => cache.readFiles(chunk));
			stats.records += records.length;
			stats.retainedRecords += retained;
			if (records.length > 0) yield records;
			await new Promise((r) => setImmediate(r));
		}
		const pending = [];
		let pendingEvents = 0;
		const r = runner;
		const requeue = (state) => {
			const fresh = guard(() => cache.getFile(state.file.codec.id, state.file.path));
			const parser = parsers.get(state.file.codec);
			if (isUnchanged(state.file, fresh, parser)) return fresh;
			const attempts = state.attempts + 1;
			const noWrite = attempts >= MAX_ATTEMPTS;
			const task = guard(() => makeTask(cache, nextId++, state.file, fresh, parser, noWrite));
			states.set(task.id, {
				task,
				file: state.file,
				row: fresh,
				attempts,
				noWrite,
				segments: [],
				events: 0
			});
			r.add([task]);
		};
		function* emit(records, retained) {
			stats.records += records.length;
			stats.retainedRecords += retained;
			if (records.length > 0) yield records;
		}
		/** The net change of a held file's updates: its removals go to the delta, its additions are yielded. */
		function* emitNet(steps) {
			const net = netChange(steps);
			if (delta) for (const x of net.removed) delta.removed.push(x);
			let retained = 0;
			for (const r of net.added) if (r.retained === true) retained++;
			yield* emit(net.added, retained);
		}
		function* applyPending() {
			const batch = pending.splice(0);
			pendingEvents = 0;
			const heldSteps = batch.map(({ state }) => state.row === void 0 ? void 0 : held(state.row));
			const results = batch.map(({ state, done }, i) => ({
				agent: state.file.codec.id,
				path: state.file.path,
				root: state.file.root,
				parser: parsers.get(state.file.codec),
				size: state.file.size,
				mtimeMs: state.file.mtimeMs,
				deps: state.file.deps,
				baseGen: state.row?.gen ?? null,
				start: state.start ?? {
					restarted: true,
					reason: "no-cursor",
					replaced: {}
				},
				segments: state.segments,
				cursor: done.cursor === void 0 ? null : JSON.stringify(done.cursor),
				prefixHash: done.prefixHash ?? null,
				track: done.track,
				delta: heldSteps[i] !== void 0
			}));
			const outcomes = guard(() => cache.apply(results));
			for (let i = 0; i < batch.length; i++) {
				const o = outcomes[i];
				const { state } = batch[i];
				if (o?.ok) {
					const steps = heldSteps[i];
					if (delta) delta.gens.set(o.id, o.gen);
					if (delta && steps !== void 0) yield* emitNet([...steps, {
						added: o.records,
						removed: o.removed ?? []
					}]);
					else yield* emit(o.records, o.retained);
					continue;
				}
				stats.conflicts++;
				if (delta) delta.exact = false;
				const fresh = requeue(state);
				if (fresh !== void 0) {
					delta?.gens.set(fresh.id, fresh.gen);
					const { records, retained } = guard(() => cache.readFiles([fresh]));
					yield* emit(records, retained);
				}
			}
		}
		for (;;) {
			if (pending.length >= APPLY_FILES || pendingEvents >= APPLY_EVENTS) {
				yield* applyPending();
				continue;
			}
			const m = await r.next();
			if (m === void 0) {
				if (pending.length === 0) break;
				yield* applyPending();
				continue;
			}
			const state = states.get(m.id);
			if (m.type === "start") state.start = m.start;
			else if (m.type === "batch") {
				state.segments.push(m.data);
				state.events += segmentCount(m.data);
			} else if (m.type === "done") {
				states.delete(m.id);
				stats.bytesRead += m.info.bytes;
				stats.bytesVerified += m.bytesVerified;
				stats.skippedLines += m.info.skippedLines;
				if (state.start?.restarted === false) stats.resumed++;
				else stats.fullReads++;
				if (state.noWrite) {
					if (delta) delta.exact = false;
					const out = [];
					for (const s of state.segments) pushRecords(decodeSegment(s), state.file.path, m.track.cwd ?? void 0, false, out);
					yield* emit(out, 0);
				} else {
					pending.push({
						state,
						done: m
					});
					pendingEvents += state.events;
				}
			} else {
				states.delete(m.id);
				const row = state.row;
				if (isMissingFileError(m.error)) {
					if (row !== void 0) {
						guard(() => cache.markDeleted([row]));
						if (opts.retainDeleted) {
							stats.deleted++;
							const fresh = guard(() => cache.getFile(row.agent, row.path));
							if (fresh !== void 0) {
								const steps = fresh.gen === row.gen + (row.deleted === 0 ? 1 : 0) ? held(row) : void 0;
								delta?.gens.set(fresh.id, fresh.gen);
								if (steps !== void 0) yield* emitNet(steps);
								else {
									if (delta?.covered.has(row.id)) delta.exact = false;
									const { records, retained } = guard(() => cache.readFiles([fresh]));
									yield* emit(records, retained);
								}
							}
						}
					}
					continue;
				}
				stats.failed++;
				opts.onWarning(`Cannot read ${state.file.path}: ${m.error.message}${row !== void 0 ? " (using its cached usage)" : ""}`);
				if (row !== void 0) {
					const served = [];
					serveRow(row, served);
					if (served.length > 0) {
						const { records, retained } = guard(() => cache.readFiles([row]));
						yield* emit(records, retained);
					}
					for (const steps of catchUps.splice(0)) yield* emitNet(steps);
				}
			}
		}
		if (delta) {
			for (const id of delta.covered.keys()) if (!delta.gens.has(id)) delta.exact = false;
		}
	} finally {
		if (opts.delta) opts.delta.writes = cache.writes;
		await runner?.close();
		cache.close();
	}
}
var READ_CHUNK_FILES, READ_CHUNK_EVENTS, APPLY_FILES, APPLY_EVENTS, MAX_ATTEMPTS;
var init_cached = __esmMin((async () => {
	init_codec();
	init_errors();
	init_store$1();
	init_db();
	await init_options();
	await init_parse_file();
	init_record_diff();
	await init_runner();
	init_segment();
	await init_streaming();
	READ_CHUNK_FILES = 256;
	READ_CHUNK_EVENTS = 1024;
	APPLY_FILES = 16;
	APPLY_EVENTS = 8192;
	MAX_ATTEMPTS = 3;
}));
// dist/src/scan/index.js
/**
* `scanUsage`: every usage event of the selected agents' session files, through the event cache and the
* worker pool. The engine under `cost report`, `events export` and the totals fold.
*
* - Discovery: each selected codec's `discover()` under `options.roots[agent]` or `codec.defaultRoots(env)`;
*   `since` skips files whose mtime precedes it when the codec declares `eventsPrecedeMtime`.
* - Each file is read with kinds ['session', 'usage']; every usage record carries the file's path and its
*   session cwd (the cwd of the first session event that has one).
* - Records are yielded raw: a response recorded in several files (resumed, forked sessions) comes once per
*   file. Consumers count each `dedupKey` once.
* - Order: the records of one file come in file order (live usage, then `retained` ledger records); files
*   interleave in completion order, which is not deterministic across runs.
*
* @example
* import { scanUsage } from 'sessionfold';
* const seen = new Set<string>();
* let output = 0;
* for await (const u of scanUsage({ agents: ['claude'] })) {
*   if (seen.has(u.dedupKey)) continue;
*   seen.add(u.dedupKey);
*   output += u.outputTokens;
* }
*/
var scan_exports = /* @__PURE__ */ __exportAll({
	discoverUsageFiles: () => discoverUsageFiles,
	discoveryStats: () => discoveryStats,
	getCachePath: () => getCachePath,
	newScanDelta: () => newScanDelta,
	newScanStats: () => newScanStats,
	scanUsage: () => scanUsage,
	scanUsageBatches: () => scanUsageBatches
});
/**
* The usage records of the selection, in batches (arrays of records: part of one file's records from a
* parse, many files' from the cache). The fast path for folds: one await per batch instead of one per record.
*/
async function* scanUsageBatches(options = {}, discovered) {
	const opts = normalizeScanOptions(options);
	const discovery = discovered ?? await discoverFiles(opts);
	if (opts.cache) yield* scanCached(opts, discovery);
	else {
		if (opts.delta) opts.delta.exact = false;
		yield* scanStreaming(opts, discovery.files);
	}
}
/**
* The files a scan with these options would read, stat'ed (the discovery `scanUsageBatches` does first).
* Pass it to `scanUsageBatches(options, discovery)` to scan without listing the roots again.
*/
async function discoverUsageFiles(options = {}) {
	return discoverFiles(normalizeScanOptions(options));
}
/** A digest of a discovery's files and their stats: equal digests, the same files as they were. */
function discoveryStats(d) {
	const h = createHash("sha256");
	for (const f of d.files) h.update(`${f.codec.id}\0${f.path}\0${f.size}\0${f.mtimeMs}\0${f.deps}\n`);
	return h.digest("hex");
}
/** The usage records of the selection, one by one (see the module header for order and duplicates). */
async function* scanUsage(options = {}) {
	for await (const batch of scanUsageBatches(options)) yield* batch;
}
var init_scan = __esmMin((async () => {
	init_discover();
	await init_options();
	await init_cached();
	await init_streaming();
	init_types();
	init_paths();
}));
// dist/src/versions.js
/**
* The installed sessionfold version, read once from its package manifest: part of every cache key whose
* meaning could change with the code (list summaries, fold snapshots), so an upgrade never reuses results
* an older build computed, even where a rule's own version number was not bumped.
*/
function sessionfoldVersion() {
	if (own !== void 0) return own;
	own = "?";
	for (let dir = dirname(fileURLToPath(import.meta.url)), i = 0; i < 5; i++, dir = dirname(dir)) try {
		const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
		if (pkg.name === "sessionfold") {
			own = String(pkg.version);
			break;
		}
	} catch {}
	return own;
}
var own;
var init_versions = __esmMin((() => {}));
// dist/src/tags.js
/**
* Session tags. Agents do not record tags, so sessionfold keeps them in a user file:
* `$SESSIONFOLD_TAGS` or `$XDG_CONFIG_HOME/sessionfold/tags.json` (default `~/.config/sessionfold/tags.json`),
* a JSON object mapping a unified id (`<agent>:<sessionId>`) or a cwd prefix (`cwd:/path`) to tag lists:
*
*   { "claude:0a1b…": ["billing"], "cwd:/home/me/work": ["work"] }
*/
function getTagsPath(env = process.env) {
	if (env.SESSIONFOLD_TAGS) return env.SESSIONFOLD_TAGS;
	const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
	return join(config, "sessionfold", "tags.json");
}
function loadTags(env = process.env) {
	const path = getTagsPath(env);
	let raw = {};
	try {
		raw = JSON.parse(readFileSync(path, "utf8"));
	} catch (e) {
		if (e.code !== "ENOENT") throw new SessionfoldError("INVALID_OPTION", `Invalid tags file ${path}: ${e.message}`, { file: path });
	}
	const byId = /* @__PURE__ */ new Map();
	const byCwd = [];
	if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) for (const [k, v] of Object.entries(raw)) {
		const tags = Array.isArray(v) ? v.filter((t) => typeof t === "string") : [];
		if (k.startsWith("cwd:")) byCwd.push([k.slice(4), tags]);
		else byId.set(k, tags);
	}
	return {
		empty: byId.size === 0 && byCwd.length === 0,
		fingerprint: JSON.stringify([[...byId].sort((a, b) => a[0] < b[0] ? -1 : 1), byCwd]),
		tagsFor(agent, sessionId, cwd) {
			const out = new Set(byId.get(`${agent}:${sessionId}`) ?? []);
			if (cwd !== void 0) {
				for (const [prefix, tags] of byCwd) if (cwd === prefix || cwd.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`)) for (const t of tags) out.add(t);
			}
			return [...out].sort();
		}
	};
}
var init_tags = __esmMin((() => {
	init_errors();
}));
// dist/src/cost/calendar.js
/** The local zone of this process (`TZ` or the system setting). */
function localTimeZone() {
	return new Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}
/** Throw INVALID_OPTION unless `tz` is an IANA zone this runtime knows. */
function checkTimeZone(tz, name = "timeZone") {
	if (tz === "UTC") return "UTC";
	try {
		return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
	} catch {
		throw invalidOption(name, "an IANA time zone such as Europe/Paris or UTC", tz);
	}
}
/** Days since 1970-01-01 → `YYYY-MM-DD` parts (proleptic Gregorian; Hinnant's civil_from_days). */
function civilFromDays(days) {
	const z = days + 719468;
	const era = Math.floor(z / 146097);
	const doe = z - era * 146097;
	const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
	const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
	const mp = Math.floor((5 * doy + 2) / 153);
	const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
	const m = mp < 10 ? mp + 3 : mp - 9;
	return [
		yoe + era * 400 + (m <= 2 ? 1 : 0),
		m,
		d
	];
}
/** ISO week key (`2026-W02`, weeks start on Monday) of a day number. */
function isoWeekKey(days) {
	const thursday = days - ((days + 3) % 7 + 7) % 7 + 3;
	const [year] = civilFromDays(thursday);
	const jan1 = Math.floor(Date.UTC(year, 0, 1) / DAY_MS);
	const week = Math.floor((thursday - jan1) / 7) + 1;
	return `${year}-W${pad2$1(week)}`;
}
/**
* Parse a CLI date: `2026-01-01`, `20260101`, `2026-01-01T10:00` (wall time in the zone) or an ISO instant
* with `Z` / an offset. A bare date is the start of that day in the zone, or with `endOfDay` its last ms.
*/
function parseDateInZone(text, cal, endOfDay = false, name = "since") {
	const s = text.trim();
	const date = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(s);
	if (date) {
		const [y, m, d] = [
			Number(date[1]),
			Number(date[2]),
			Number(date[3])
		];
		if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate()) throw invalidOption(name, "a date YYYY-MM-DD or an ISO-8601 time", text);
		return new Date(endOfDay ? cal.toInstant(y, m, d + 1) - 1 : cal.toInstant(y, m, d));
	}
	const wall = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(s);
	if (wall) {
		const n = wall.slice(1).map((x) => x === void 0 ? 0 : Number(x));
		const [y, m, d, h, mi, sec] = n;
		if (m < 1 || m > 12 || d < 1 || d > new Date(Date.UTC(y, m, 0)).getUTCDate() || h > 23 || mi > 59 || sec > 59) throw invalidOption(name, "a date YYYY-MM-DD or an ISO-8601 time", text);
		return new Date(cal.toInstant(n[0], n[1], n[2], n[3], n[4], n[5], Number(((wall[7] ?? "0") + "00").slice(0, 3))));
	}
	if (/^\d{4}-\d{2}-\d{2}T.*(?:Z|[+-]\d{2}:?\d{2})$/i.test(s)) {
		const ms = Date.parse(s);
		if (!Number.isNaN(ms)) return new Date(ms);
	}
	throw invalidOption(name, "a date YYYY-MM-DD or an ISO-8601 time", text);
}
var DAY_MS, QUARTER_MS, pad2$1, ZoneCalendar;
var init_calendar = __esmMin((() => {
	init_errors();
	DAY_MS = 864e5;
	QUARTER_MS = 9e5;
	pad2$1 = (n) => n < 10 ? `0${n}` : `${n}`;
	ZoneCalendar = class {
		timeZone;
		#utc;
		#fmt;
		#offsets = /* @__PURE__ */ new Map();
		/** Per UTC day: its offset when constant all day, null when the day has a transition. */
		#dayOffsets = /* @__PURE__ */ new Map();
		#days = /* @__PURE__ */ new Map();
		#weeks = /* @__PURE__ */ new Map();
		#lastQuarter = NaN;
		#lastOffset = 0;
		#lastDay = NaN;
		#lastDayKey = "";
		constructor(timeZone = localTimeZone()) {
			this.timeZone = checkTimeZone(timeZone);
			this.#utc = /^(?:utc|etc\/utc|etc\/gmt|gmt|etc\/uct|uct|etc\/zulu|zulu)$/i.test(this.timeZone);
			this.#fmt = this.#utc ? void 0 : new Intl.DateTimeFormat("en-US", {
				timeZone: this.timeZone,
				hourCycle: "h23",
				year: "numeric",
				month: "numeric",
				day: "numeric",
				hour: "numeric",
				minute: "numeric",
				second: "numeric"
			});
		}
		/** Offset at an instant, straight from Intl (the slow path). */
		#intlOffset(at) {
			const p = {};
			for (const part of this.#fmt.formatToParts(at)) if (part.type !== "literal") p[part.type] = Number(part.value);
			return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - at;
		}
		/**
		* The zone's offset from UTC at instant `ms`, in ms (local = UTC + offset). A UTC day whose start and end
		* have the same offset has it throughout (zones change at most once a day), so most days cost two Intl
		* calls in all; a day with a transition is resolved per quarter hour.
		*/
		offsetAt(ms) {
			if (this.#utc) return 0;
			const q = Math.floor(ms / QUARTER_MS);
			if (q === this.#lastQuarter) return this.#lastOffset;
			const day = Math.floor(ms / DAY_MS);
			let whole = this.#dayOffsets.get(day);
			if (whole === void 0) {
				const a = this.#intlOffset(day * DAY_MS);
				whole = a === this.#intlOffset((day + 1) * DAY_MS - QUARTER_MS) ? a : null;
				this.#dayOffsets.set(day, whole);
			}
			let off;
			if (whole !== null) off = whole;
			else {
				let o = this.#offsets.get(q);
				if (o === void 0) {
					o = this.#intlOffset(q * QUARTER_MS);
					this.#offsets.set(q, o);
				}
				off = o;
			}
			this.#lastQuarter = q;
			this.#lastOffset = off;
			return off;
		}
		/** Local day number (days since 1970-01-01 in this zone) of instant `ms`. */
		dayNumber(ms) {
			return Math.floor((ms + this.offsetAt(ms)) / DAY_MS);
		}
		/** `YYYY-MM-DD` of instant `ms` in this zone. */
		dayKey(ms) {
			const d = this.dayNumber(ms);
			if (d === this.#lastDay) return this.#lastDayKey;
			let s = this.#days.get(d);
			if (s === void 0) {
				const [y, m, dd] = civilFromDays(d);
				s = `${y}-${pad2$1(m)}-${pad2$1(dd)}`;
				this.#days.set(d, s);
			}
			this.#lastDay = d;
			this.#lastDayKey = s;
			return s;
		}
		/** ISO week `YYYY-Www` (Monday first) of instant `ms` in this zone. */
		weekKey(ms) {
			const d = this.dayNumber(ms);
			let s = this.#weeks.get(d);
			if (s === void 0) {
				s = isoWeekKey(d);
				this.#weeks.set(d, s);
			}
			return s;
		}
		#months = /* @__PURE__ */ new Map();
		/** `YYYY-MM` of instant `ms` in this zone. */
		monthKey(ms) {
			const day = this.dayKey(ms);
			let m = this.#months.get(day);
			if (m === void 0) {
				m = day.slice(0, 7);
				this.#months.set(day, m);
			}
			return m;
		}
		/**
		* The instant at which the wall clock of this zone shows the given time. Candidates are the wall time under
		* the offsets in force a day before and a day after: a wall time shown twice (fall back) resolves to its
		* first occurrence, one that does not exist (spring forward; in some zones that is midnight, e.g.
		* America/Santiago) resolves forward, to the transition.
		*/
		toInstant(year, month, day, hour = 0, minute = 0, second = 0, millis = 0) {
			const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
			const before = wall - this.offsetAt(wall - DAY_MS);
			const after = wall - this.offsetAt(wall + DAY_MS);
			const beforeOk = before + this.offsetAt(before) === wall;
			const afterOk = after + this.offsetAt(after) === wall;
			if (beforeOk && afterOk) return Math.min(before, after);
			if (beforeOk) return before;
			if (afterOk) return after;
			return Math.max(before, after);
		}
	};
}));
// dist/src/cost/filter.js
function checkDate$1(v, name) {
	if (v === void 0) return void 0;
	if (!(v instanceof Date) || Number.isNaN(v.getTime())) throw invalidOption(name, "a valid Date", v);
	return v.getTime();
}
function checkStrings(v, name) {
	if (v === void 0) return void 0;
	if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw invalidOption(name, "an array of strings", v);
	return v;
}
/** Fill every default once; throw INVALID_OPTION for bad values. */
function normalizeCostOptions(o = {}) {
	const agentList = [...o.agent !== void 0 ? [o.agent] : [], ...checkStrings(o.agents, "agents") ?? []];
	const agents = agentList.length > 0 ? new Set(agentList.map((a) => findCodec(a)?.id ?? a.toLowerCase())) : void 0;
	if (o.groupBy !== void 0 && !COST_GROUP_BYS.includes(o.groupBy)) throw invalidOption("groupBy", COST_GROUP_BYS.join("|"), o.groupBy);
	const mode = checkCostMode(o.mode ?? o.pricer?.mode ?? "auto");
	const tags = checkStrings(o.tags, "tags");
	if (o.model !== void 0 && typeof o.model !== "string") throw invalidOption("model", "a string", o.model);
	if (o.cwd !== void 0 && typeof o.cwd !== "string") throw invalidOption("cwd", "a string", o.cwd);
	const needTags = tags !== void 0 && tags.length > 0 || o.groupBy === "tag";
	const env = o.env ?? process.env;
	return {
		agents,
		sinceMs: checkDate$1(o.since, "since") ?? -Infinity,
		untilMs: checkDate$1(o.until, "until") ?? Infinity,
		model: o.model === void 0 || o.model === "" ? void 0 : o.model.toLowerCase(),
		tags: tags !== void 0 && tags.length > 0 ? new Set(tags) : void 0,
		cwd: o.cwd === void 0 || o.cwd === "" ? void 0 : o.cwd.length > 1 ? o.cwd.replace(/\/+$/, "") : o.cwd,
		groupBy: o.groupBy,
		calendar: new ZoneCalendar(o.timeZone ?? localTimeZone()),
		mode,
		pricer: o.pricer ?? createPricer({
			mode,
			env,
			...o.pricesFile !== void 0 && { pricesFile: o.pricesFile }
		}),
		tagIndex: needTags ? o.tagIndex ?? loadTags(env) : void 0
	};
}
function digits(s, from, to) {
	let n = 0;
	for (let i = from; i < to; i++) {
		const c = s.charCodeAt(i) - 48;
		if (c < 0 || c > 9) return -1;
		n = n * 10 + c;
	}
	return n;
}
/**
* Milliseconds of an event timestamp; NaN when it is missing or the 1970 sentinel of a line without one.
* The codecs' `YYYY-MM-DDTHH:MM:SS[.fff…]Z` is read digit by digit (several times faster than Date.parse,
* which runs once per event); anything else goes to Date.parse.
*/
function eventTime(ts) {
	const len = ts.length;
	let ms = NaN;
	if (len >= 20 && ts.charCodeAt(len - 1) === 90 && ts.charCodeAt(4) === 45 && ts.charCodeAt(7) === 45 && ts.charCodeAt(10) === 84 && ts.charCodeAt(13) === 58 && ts.charCodeAt(16) === 58) {
		const y = digits(ts, 0, 4);
		const mo = digits(ts, 5, 7);
		const d = digits(ts, 8, 10);
		const h = digits(ts, 11, 13);
		const mi = digits(ts, 14, 16);
		const sec = digits(ts, 17, 19);
		let frac = 0;
		let ok = y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h <= 24 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59;
		if (ok && len > 20) {
			if (ts.charCodeAt(19) !== 46 || len < 22) ok = false;
			else {
				const f = digits(ts, 20, Math.min(len - 1, 23));
				if (f < 0 || digits(ts, 20, len - 1) < 0) ok = false;
				else frac = f * (len - 1 - 20 >= 3 ? 1 : len - 1 - 20 === 2 ? 10 : 100);
			}
		}
		if (ok) ms = Date.UTC(y, mo - 1, d, h, mi, sec, frac);
	}
	if (Number.isNaN(ms)) ms = Date.parse(ts);
	return ms > 0 ? ms : NaN;
}
/** The selection predicate of normalized options. */
function createRecordSelector(n) {
	const tagMemo = /* @__PURE__ */ new Map();
	const tagsOf = (r) => {
		if (!n.tagIndex) return [];
		const k = `${r.agent}\u0000${r.sessionId}\u0000${r.cwd ?? ""}`;
		let t = tagMemo.get(k);
		if (t === void 0) {
			t = n.tagIndex.tagsFor(r.agent, r.sessionId, r.cwd);
			tagMemo.set(k, t);
		}
		return t;
	};
	const modelMemo = /* @__PURE__ */ new Map();
	const modelMatches = (model) => {
		let m = modelMemo.get(model);
		if (m === void 0) {
			m = model.toLowerCase().includes(n.model);
			modelMemo.set(model, m);
		}
		return m;
	};
	const needsTime = n.sinceMs !== -Infinity || n.untilMs !== Infinity;
	const cwdPrefix = n.cwd === void 0 ? void 0 : n.cwd === "/" ? "/" : `${n.cwd}/`;
	return {
		needsTime,
		tagsOf,
		accepts(r, ms) {
			if (n.agents !== void 0 && !n.agents.has(r.agent)) return false;
			if (needsTime && !(ms >= n.sinceMs && ms <= n.untilMs)) return false;
			if (n.model !== void 0 && !modelMatches(r.model)) return false;
			if (cwdPrefix !== void 0 && (r.cwd === void 0 || r.cwd !== n.cwd && !r.cwd.startsWith(cwdPrefix))) return false;
			if (n.tags !== void 0) {
				let hit = false;
				for (const t of tagsOf(r)) if (n.tags.has(t)) hit = true;
				if (!hit) return false;
			}
			return true;
		}
	};
}
var COST_GROUP_BYS;
var init_filter = __esmMin((async () => {
	init_errors();
	await init_registry();
	init_tags();
	init_calendar();
	init_pricing();
	COST_GROUP_BYS = [
		"agent",
		"model",
		"day",
		"week",
		"month",
		"session",
		"project",
		"tag"
	];
}));
// dist/src/cost/fold-state.js
function chunkCountOf(slots) {
	return Math.ceil(slots / CHUNK_SLOTS);
}
function slotsIn(slots, c) {
	return Math.max(0, Math.min(CHUNK_SLOTS, slots - c * CHUNK_SLOTS));
}
function bytesOf(a, start, count) {
	return Buffer.from(a.buffer, a.byteOffset + start * a.BYTES_PER_ELEMENT, count * a.BYTES_PER_ELEMENT);
}
/** The hash piece of chunk `c`. */
function encodeHashes(hashes, slots, c) {
	return Buffer.from(bytesOf(hashes, c * CHUNK_SLOTS * 2, slotsIn(slots, c) * 2));
}
/** The column piece of chunk `c` (`nf` floats and `ni` ints per slot). */
function encodeColumns(floats, ints, slots, c, nf, ni) {
	const n = slotsIn(slots, c);
	const from = c * CHUNK_SLOTS;
	const out = Buffer.allocUnsafe(n * (nf * 8 + ni * 4));
	bytesOf(floats, from * nf, n * nf).copy(out, 0);
	bytesOf(ints, from * ni, n * ni).copy(out, n * nf * 8);
	return out;
}
/** Copy a column piece of chunk `c` into the columns. */
function decodeColumns(piece, floats, ints, slots, c, nf, ni) {
	const n = slotsIn(slots, c);
	if (piece.byteLength !== n * (nf * 8 + ni * 4)) throw new RangeError(`fold state chunk ${c} has ${piece.byteLength} bytes`);
	const from = c * CHUNK_SLOTS;
	new Uint8Array(floats.buffer, floats.byteOffset + from * nf * 8, n * nf * 8).set(piece.subarray(0, n * nf * 8));
	new Uint8Array(ints.buffer, ints.byteOffset + from * ni * 4, n * ni * 4).set(piece.subarray(n * nf * 8));
}
/** Decode a header and its hash pieces into a hash column with room for `capacity` slots. */
function decodeHeaderAndHashes(headerJson, pieces, capacity) {
	const header = JSON.parse(headerJson);
	if (header.version !== 3) throw new RangeError(`fold state version ${String(header.version)}, this build knows 3`);
	const slots = header.slots;
	if (!Number.isInteger(slots) || slots < 0 || pieces.length !== chunkCountOf(slots)) throw new RangeError("fold state chunks do not match its header");
	const hashes = new Uint32Array(capacity(slots) * 2);
	const h8 = new Uint8Array(hashes.buffer);
	pieces.forEach((piece, c) => {
		if (piece.byteLength !== slotsIn(slots, c) * 8) throw new RangeError(`fold state hash chunk ${c} has ${piece.byteLength} bytes`);
		h8.set(piece, c * CHUNK_SLOTS * 8);
	});
	return {
		header,
		hashes
	};
}
var CHUNK_SLOTS, hashSeq, columnSeq, SnapshotLost;
var init_fold_state = __esmMin((() => {
	CHUNK_SLOTS = 8192;
	hashSeq = (c) => 2 * c;
	columnSeq = (c) => 2 * c + 1;
	SnapshotLost = class extends Error {
		constructor() {
			super("the stored fold state changed while it was being read");
		}
	};
}));
// dist/src/cost/fold-totals.js
/** One copy's fields into a record's sums. */
function addTo(t, f, at, unpriced, sign) {
	for (let k = 0; k <= 6; k++) t[k] = t[k] + sign * f[at + k];
	t[7] = t[7] + sign;
	if (unpriced >= 0) t[8] = t[8] + sign;
}
function bump(m, k, by) {
	const v = (m.get(k) ?? 0) + by;
	if (v === 0) m.delete(k);
	else m.set(k, v);
}
var NU, FoldTotals;
var init_fold_totals = __esmMin((() => {
	NU = 5;
	FoldTotals = class FoldTotals {
		total = /* @__PURE__ */ new Float64Array(9);
		/** Counted copies per session and per file (sessionCount and runCount are their sizes). */
		sessions = /* @__PURE__ */ new Map();
		files = /* @__PURE__ */ new Map();
		unpriced = /* @__PURE__ */ new Map();
		groups = /* @__PURE__ */ new Map();
		/**
		* Count (`sign` 1) or uncount (-1) one copy: its tokens (6) and nano-dollars at `f[at…]`, its group set,
		* session and file, and its interned unpriced model (-1 when priced).
		*/
		account(f, at, groups, session, file, unpriced, sign) {
			addTo(this.total, f, at, unpriced, sign);
			bump(this.sessions, session, sign);
			bump(this.files, file, sign);
			if (unpriced >= 0) {
				let u = this.unpriced.get(unpriced);
				if (u === void 0) this.unpriced.set(unpriced, u = new Float64Array(NU));
				u[0] = u[0] + sign;
				u[1] = u[1] + sign * f[at + 0];
				u[2] = u[2] + sign * f[at + 1];
				u[3] = u[3] + sign * f[at + 3];
				u[4] = u[4] + sign * f[at + 4];
				if (u[0] === 0) this.unpriced.delete(unpriced);
			}
			for (const g of groups) {
				let e = this.groups.get(g);
				if (e === void 0) this.groups.set(g, e = {
					t: /* @__PURE__ */ new Float64Array(9),
					sessions: /* @__PURE__ */ new Map()
				});
				addTo(e.t, f, at, unpriced, sign);
				bump(e.sessions, session, sign);
				if (e.t[7] === 0) this.groups.delete(g);
			}
		}
		toJSON() {
			return {
				total: [...this.total],
				sessions: [...this.sessions],
				files: [...this.files],
				unpriced: [...this.unpriced].map(([k, v]) => [k, [...v]]),
				groups: [...this.groups].map(([k, e]) => [
					k,
					[...e.t],
					[...e.sessions]
				])
			};
		}
		/** The sums `toJSON()` wrote; a RangeError for anything else. */
		static fromJSON(v) {
			const o = v;
			if (o === null || typeof o !== "object" || !Array.isArray(o.total) || o.total.length !== 9) throw new RangeError("fold totals do not decode");
			const t = new FoldTotals();
			t.total.set(o.total);
			for (const [k, n] of o.sessions) t.sessions.set(k, n);
			for (const [k, n] of o.files) t.files.set(k, n);
			for (const [k, u] of o.unpriced) t.unpriced.set(k, Float64Array.from(u));
			for (const [k, sums, sessions] of o.groups) t.groups.set(k, {
				t: Float64Array.from(sums),
				sessions: new Map(sessions)
			});
			return t;
		}
	};
}));
// dist/src/cost/key-table.js
/**
* A compact map from dedup keys to small integers (or a set of them), for folds and exports over millions of
* usage events. A `Map<string, …>` would keep every key string alive (~100 bytes each with its entry);
* this table keeps only a 64-bit xxhash of each key in one open-addressed typed array: 16 bytes per slot,
* load factor ≤ 0.5, so ~32 bytes per key. Two different keys collide with probability ~n²/2^65 (3·10^-8 for a
* million keys), an accepted, documented risk. The table serializes to bytes so an export cursor can keep
* the set of keys it has already shipped.
*/
/** Hash a key into `HASH` (hot paths: no array per call). */
function hashInto(key) {
	const h = api.h64(key);
	const hi = Number(h >> 32n);
	const lo = Number(h & MASK32);
	HASH[0] = hi;
	HASH[1] = hi === 0 && lo === 0 ? 1 : lo;
}
var api, MASK32, HASH, KeyTable;
var init_key_table = __esmMin((async () => {
	api = await xxhash();
	MASK32 = 4294967295n;
	HASH = /* @__PURE__ */ new Uint32Array(2);
	KeyTable = class KeyTable {
		/** Slots of 4 uint32: hash hi, hash lo, value, unused (one slot per 16 bytes: a probe touches one cache line). */
		#data;
		#size = 0;
		#mask;
		constructor(capacity = 1024) {
			let cap = 16;
			while (cap < capacity * 2) cap *= 2;
			this.#data = new Uint32Array(cap * 4);
			this.#mask = cap - 1;
		}
		get size() {
			return this.#size;
		}
		/** Index (in uint32s) of the key's slot, or of the empty slot where it would go. */
		#slot(hi, lo) {
			const d = this.#data;
			let i = (lo ^ Math.imul(hi, 2654435761)) & this.#mask;
			for (;;) {
				const o = i << 2;
				const h = d[o];
				const l = d[o + 1];
				if (h === hi && l === lo) return o;
				if (h === 0 && l === 0) return o;
				i = i + 1 & this.#mask;
			}
		}
		#grow() {
			const old = this.#data;
			this.#data = new Uint32Array(old.length * 2);
			this.#mask = old.length / 2 - 1;
			for (let o = 0; o < old.length; o += 4) {
				const hi = old[o];
				const lo = old[o + 1];
				if (hi === 0 && lo === 0) continue;
				const j = this.#slot(hi, lo);
				this.#data[j] = hi;
				this.#data[j + 1] = lo;
				this.#data[j + 2] = old[o + 2];
			}
		}
		/** The value stored for a hashed key, or -1. */
		getHash(hi, lo) {
			const o = this.#slot(hi, lo);
			const d = this.#data;
			return d[o] === 0 && d[o + 1] === 0 ? -1 : d[o + 2];
		}
		/** Store a value (0 ≤ value < 2^31) for a hashed key. */
		setHash(hi, lo, value) {
			let o = this.#slot(hi, lo);
			if (this.#data[o] === 0 && this.#data[o + 1] === 0) {
				if ((this.#size + 1) * 2 > this.#data.length / 4) {
					this.#grow();
					o = this.#slot(hi, lo);
				}
				this.#data[o] = hi;
				this.#data[o + 1] = lo;
				this.#size++;
			}
			this.#data[o + 2] = value;
		}
		get(key) {
			hashInto(key);
			return this.getHash(HASH[0], HASH[1]);
		}
		set(key, value) {
			hashInto(key);
			this.setHash(HASH[0], HASH[1], value);
		}
		/** Set-style use: add the key; true when it was not there yet. */
		add(key) {
			hashInto(key);
			const hi = HASH[0];
			const lo = HASH[1];
			if (this.getHash(hi, lo) >= 0) return false;
			this.setHash(hi, lo, 0);
			return true;
		}
		has(key) {
			return this.get(key) >= 0;
		}
		/** The slots as they are (a fold snapshot stores them): `KeyTable.fromRaw` takes them back without rehashing. */
		raw() {
			return {
				data: this.#data,
				size: this.#size
			};
		}
		/** The table `raw()` returned (`data` is used, not copied). */
		static fromRaw(data, size) {
			const slots = data.length / 4;
			if (!Number.isInteger(slots) || slots < 16 || (slots & slots - 1) !== 0 || size < 0 || size * 2 > slots) throw new RangeError("not a key table");
			const t = new KeyTable(1);
			t.#data = data;
			t.#mask = slots - 1;
			t.#size = size;
			return t;
		}
		/** The hashes (not the values) as bytes: 8 per key, big-endian hi then lo. */
		toBytes() {
			const out = Buffer.allocUnsafe(this.#size * 8);
			const d = this.#data;
			let o = 0;
			for (let i = 0; i < d.length; i += 4) {
				if (d[i] === 0 && d[i + 1] === 0) continue;
				out.writeUInt32BE(d[i], o);
				out.writeUInt32BE(d[i + 1], o + 4);
				o += 8;
			}
			return out;
		}
		/** The values, 4 bytes per key (big-endian), in the order of `toBytes()`. */
		valuesToBytes() {
			const out = Buffer.allocUnsafe(this.#size * 4);
			const d = this.#data;
			let o = 0;
			for (let i = 0; i < d.length; i += 4) {
				if (d[i] === 0 && d[i + 1] === 0) continue;
				out.writeUInt32BE(d[i + 2], o);
				o += 4;
			}
			return out;
		}
		/** The table `toBytes()` (and optionally `valuesToBytes()`) wrote; values 0 without `values`. */
		static fromBytes(bytes, values) {
			const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
			const vals = values !== void 0 && values.byteLength * 2 === buf.length ? Buffer.from(values.buffer, values.byteOffset, values.byteLength) : void 0;
			const n = Math.floor(buf.length / 8);
			const t = new KeyTable(Math.max(n, 1024));
			for (let o = 0; o + 8 <= buf.length; o += 8) {
				const hi = buf.readUInt32BE(o);
				const lo = buf.readUInt32BE(o + 4);
				if (hi !== 0 || lo !== 0) t.setHash(hi, lo, vals === void 0 ? 0 : vals.readUInt32BE(o / 2));
			}
			return t;
		}
	};
}));
// dist/src/cost/fold.js
/** A zero CostRecord (also the SessionManager's per-session and per-message start). */
function emptyCostRecord() {
	return {
		totalUsd: 0,
		inputTokens: 0,
		outputTokens: 0,
		thinkingTokens: 0,
		cachedTokens: 0,
		cacheReadTokens: 0,
		cacheWriteTokens: 0,
		cacheWrite1hTokens: 0,
		requestCount: 0,
		unpricedCount: 0
	};
}
/** A zero-valued summary (what a selection without usage folds to). */
function emptyCostSummary(grouped) {
	return {
		...emptyCostRecord(),
		sessionCount: 0,
		runCount: 0,
		unpriced: [],
		...grouped && { breakdowns: {} }
	};
}
/**
* The synchronous core of the totals fold.
* @example
* const fold = createCostFold({ groupBy: 'day', timeZone: 'UTC' });
* for (const r of records) fold.add(r);
* const summary = fold.result();
*
* `state` (from `exportState()` of a fold with the same options) restores a fold; a state that does not
* decode is a RangeError.
*/
function createCostFold(options = {}, state) {
	const n = normalizeCostOptions(options);
	const sel = createRecordSelector(n);
	const cal = n.calendar;
	const capacity = (slots) => Math.max(1024, slots * 2);
	const restored = state === void 0 ? void 0 : decodeHeaderAndHashes(state.header, state.hashes, capacity);
	const h = restored?.header;
	const files = new Interner(h?.files);
	const sessions = new Interner(h?.sessions);
	const groups = new Interner(h?.groups);
	const groupSets = h?.groupSets ?? [[]];
	const groupSetIds = new Map(h?.tagSets);
	const unpricedModels = new Interner(h?.unpriced);
	const totals = h === void 0 ? new FoldTotals() : FoldTotals.fromJSON(h.totals);
	let slots = h?.slots ?? 0;
	let f = new Float64Array(capacity(slots) * NF);
	let ints = new Int32Array(capacity(slots) * NI);
	/** Each slot's key hash (hi, lo): what the stored state keeps instead of the hash table. */
	let hashes = restored?.hashes ?? /* @__PURE__ */ new Uint32Array(2048);
	let keyTable;
	const table = () => {
		if (keyTable === void 0) {
			keyTable = new KeyTable(Math.max(65536, slots));
			for (let i = 0; i < slots; i++) keyTable.setHash(hashes[2 * i], hashes[2 * i + 1], i);
		}
		return keyTable;
	};
	const counts = h?.counts ?? {
		records: 0,
		selected: 0,
		keys: 0
	};
	/** Slots the state was restored with; the chunks among them whose columns are read, and changed. */
	const restoredSlots = slots;
	const loaded = new Uint8Array(chunkCountOf(restoredSlots));
	const dirtyChunks = /* @__PURE__ */ new Set();
	/** Read the columns of a restored slot's chunk before they are compared or rewritten. */
	const ensure = (slot) => {
		if (slot >= restoredSlots || state === void 0) return;
		const c = Math.floor(slot / CHUNK_SLOTS);
		if (loaded[c] === 1) return;
		decodeColumns(state.columns(c), f, ints, restoredSlots, c, NF, NI);
		loaded[c] = 1;
	};
	/** Group set of a record with one group (all dimensions but tag); cached for the last key seen. */
	const singleGroupIds = new Map(h?.single);
	let lastGroupKey;
	let lastGroupSet = -1;
	const singleGroupSet = (key) => {
		if (key === lastGroupKey) return lastGroupSet;
		let id = singleGroupIds.get(key);
		if (id === void 0) {
			id = groupSets.length;
			groupSets.push([groups.id(key)]);
			singleGroupIds.set(key, id);
		}
		lastGroupKey = key;
		lastGroupSet = id;
		return id;
	};
	const tagGroupSet = (tags) => {
		const k = tags.join("\0");
		let id = groupSetIds.get(k);
		if (id === void 0) {
			id = groupSets.length;
			groupSets.push(tags.map((g) => groups.id(g)));
			groupSetIds.set(k, id);
		}
		return id;
	};
	const groupSetOf = (r, ms) => {
		switch (n.groupBy) {
			case void 0: return 0;
			case "agent": return singleGroupSet(r.agent);
			case "model": return singleGroupSet(r.model);
			case "day": return singleGroupSet(Number.isNaN(ms) ? UNKNOWN_GROUP : cal.dayKey(ms));
			case "week": return singleGroupSet(Number.isNaN(ms) ? UNKNOWN_GROUP : cal.weekKey(ms));
			case "month": return singleGroupSet(Number.isNaN(ms) ? UNKNOWN_GROUP : cal.monthKey(ms));
			case "session": return singleGroupSet(sessions.values[sessionOf(r)]);
			case "project": return singleGroupSet(r.cwd ?? "(unknown)");
			case "tag": {
				const t = sel.tagsOf(r);
				return t.length > 0 ? tagGroupSet(t) : singleGroupSet(UNTAGGED_GROUP);
			}
		}
	};
	const timeGrouped = n.groupBy === "day" || n.groupBy === "week" || n.groupBy === "month";
	let lastFile;
	let lastFileId = -1;
	let lastAgent;
	let lastSessionId;
	let lastSession = -1;
	const fileOf = (r) => {
		if (r.file !== lastFile) {
			lastFile = r.file;
			lastFileId = files.id(r.file);
		}
		return lastFileId;
	};
	const sessionOf = (r) => {
		if (r.sessionId !== lastSessionId || r.agent !== lastAgent) {
			lastAgent = r.agent;
			lastSessionId = r.sessionId;
			lastSession = sessions.id(`${r.agent}:${r.sessionId}`);
		}
		return lastSession;
	};
	/** Count (`sign` 1) or uncount (-1) the copy in `slot` in the running totals (no object per event). */
	const account = (slot, sign) => {
		const i = slot * NI;
		totals.account(f, slot * NF, groupSets[ints[i + I_GROUPS]], ints[i + I_SESSION], ints[i + I_FILE], ints[i + I_UNPRICED], sign);
	};
	/** Count `r` in `slot`: a new slot (`replace` false), or in place of the copy there. */
	const write = (slot, r, ms, replace) => {
		if (slot < restoredSlots) dirtyChunks.add(Math.floor(slot / CHUNK_SLOTS));
		if (replace) account(slot, -1);
		const usd = n.pricer.priceUsd(r, n.mode);
		const b = slot * NF;
		f[b + F_IN] = r.inputTokens;
		f[b + F_OUT] = r.outputTokens;
		f[b + F_REASONING] = r.reasoningTokens;
		f[b + F_CACHE_READ] = r.cacheReadTokens;
		f[b + F_CACHE_WRITE] = r.cacheWriteTokens;
		f[b + F_CACHE_WRITE_1H] = r.cacheWrite1hTokens;
		f[b + F_NANO_USD] = Number.isNaN(usd) ? 0 : Math.round(usd * 1e9);
		f[b + F_OFFSET] = r.offset;
		const i = slot * NI;
		ints[i + I_GROUPS] = groupSetOf(r, ms);
		ints[i + I_SESSION] = sessionOf(r);
		ints[i + I_FILE] = fileOf(r);
		ints[i + I_UNPRICED] = Number.isNaN(usd) ? unpricedModels.id(`${r.model}\u0000${r.provider ?? ""}`) : -1;
		account(slot, 1);
	};
	/** True when `r` should replace the copy in `slot`. */
	const beats = (r, slot) => {
		ensure(slot);
		const b = slot * NF;
		const out = f[b + F_OUT];
		if (r.outputTokens !== out) return r.outputTokens > out;
		const total = r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;
		const old = f[b + F_IN] + out + f[b + F_CACHE_READ] + f[b + F_CACHE_WRITE];
		if (total !== old) return total > old;
		const oldFile = files.values[ints[slot * NI + I_FILE]];
		if (r.file !== oldFile) return r.file < oldFile;
		return r.offset < f[b + F_OFFSET];
	};
	/** A new slot for a key not seen yet. */
	const insert = (hi, lo, r, ms) => {
		if (slots * NF >= f.length) {
			const nf = new Float64Array(f.length * 2);
			nf.set(f);
			f = nf;
			const ni = new Int32Array(ints.length * 2);
			ni.set(ints);
			ints = ni;
			const nh = new Uint32Array(hashes.length * 2);
			nh.set(hashes);
			hashes = nh;
		}
		hashes[2 * slots] = hi;
		hashes[2 * slots + 1] = lo;
		write(slots, r, ms, false);
		slots++;
		counts.keys = slots;
	};
	/** Fold a selected, hashed record against `keys` (NOT_FOUND marks a key without a slot yet). */
	const addHashed = (keys, r, ms, hi, lo) => {
		const existing = keys.getHash(hi, lo);
		if (existing >= 0 && existing !== NOT_FOUND) {
			if (beats(r, existing)) write(existing, r, ms, true);
			return;
		}
		insert(hi, lo, r, ms);
		keys.setHash(hi, lo, slots - 1);
	};
	/** Records a restored fold holds before its dedup table is needed (see `add`). */
	const pending = [];
	const flushPending = () => {
		if (pending.length === 0) return;
		if (keyTable !== void 0) {
			for (const p of pending.splice(0)) addHashed(keyTable, p.r, p.ms, p.hi, p.lo);
			return;
		}
		const want = new KeyTable(pending.length);
		for (const p of pending) want.setHash(p.hi, p.lo, NOT_FOUND);
		for (let i = 0; i < slots; i++) {
			const hi = hashes[2 * i];
			const lo = hashes[2 * i + 1];
			if (want.getHash(hi, lo) === NOT_FOUND) want.setHash(hi, lo, i);
		}
		for (const p of pending.splice(0)) addHashed(want, p.r, p.ms, p.hi, p.lo);
	};
	return {
		options: n,
		counts,
		add(r) {
			counts.records++;
			const ms = sel.needsTime || timeGrouped ? eventTime(r.timestamp) : NaN;
			if (!sel.accepts(r, ms)) return;
			counts.selected++;
			hashInto(r.dedupKey);
			const hi = HASH[0];
			const lo = HASH[1];
			if (keyTable === void 0 && restoredSlots > 0) {
				if (pending.length < MAX_PENDING) {
					pending.push({
						r,
						ms,
						hi,
						lo
					});
					return;
				}
				flushPending();
			}
			addHashed(table(), r, ms, hi, lo);
		},
		holds(r) {
			flushPending();
			const ms = sel.needsTime || timeGrouped ? eventTime(r.timestamp) : NaN;
			if (!sel.accepts(r, ms)) return false;
			hashInto(r.dedupKey);
			const slot = table().getHash(HASH[0], HASH[1]);
			if (slot < 0) return false;
			ensure(slot);
			const b = slot * NF;
			return files.values[ints[slot * NI + I_FILE]] === r.file && f[b + F_OFFSET] === r.offset && f[b + F_IN] === r.inputTokens && f[b + F_OUT] === r.outputTokens && f[b + F_REASONING] === r.reasoningTokens && f[b + F_CACHE_READ] === r.cacheReadTokens && f[b + F_CACHE_WRITE] === r.cacheWriteTokens && f[b + F_CACHE_WRITE_1H] === r.cacheWrite1hTokens;
		},
		exportState(changedOnly = false) {
			flushPending();
			const header = {
				version: 3,
				slots,
				counts,
				files: files.values,
				sessions: sessions.values,
				groups: groups.values,
				unpriced: unpricedModels.values,
				groupSets,
				single: [...singleGroupIds],
				tagSets: [...groupSetIds],
				totals: totals.toJSON()
			};
			const chunkCount = chunkCountOf(slots);
			const pieces = /* @__PURE__ */ new Map();
			const firstGrown = changedOnly && slots === restoredSlots ? chunkCount : Math.floor(restoredSlots / CHUNK_SLOTS);
			for (let c = 0; c < chunkCount; c++) {
				const grown = !changedOnly || c >= firstGrown;
				if (!grown && !dirtyChunks.has(c)) continue;
				if (grown) pieces.set(hashSeq(c), () => encodeHashes(hashes, slots, c));
				pieces.set(columnSeq(c), () => {
					if (c * 8192 < restoredSlots) ensure(c * CHUNK_SLOTS);
					return encodeColumns(f, ints, slots, c, NF, NI);
				});
			}
			return {
				header: JSON.stringify(header),
				pieces,
				seqCount: 2 * chunkCount
			};
		},
		result() {
			flushPending();
			const fill = (rec, t) => {
				rec.inputTokens = t[0];
				rec.outputTokens = t[1];
				rec.thinkingTokens = t[2];
				rec.cacheReadTokens = t[3];
				rec.cacheWriteTokens = t[4];
				rec.cacheWrite1hTokens = t[5];
				rec.requestCount = t[7];
				rec.unpricedCount = t[8];
				rec.totalUsd = t[6] / 1e9;
				rec.cachedTokens = rec.cacheReadTokens + rec.cacheWriteTokens;
			};
			const total = emptyCostSummary(n.groupBy !== void 0);
			fill(total, totals.total);
			total.sessionCount = totals.sessions.size;
			total.runCount = totals.files.size;
			const unpriced = [];
			for (const [u, v] of totals.unpriced) {
				const [model, provider] = unpricedModels.values[u].split("\0");
				unpriced.push({
					model,
					...provider !== "" && { provider },
					count: v[0],
					inputTokens: v[1],
					outputTokens: v[2],
					cacheReadTokens: v[3],
					cacheWriteTokens: v[4]
				});
			}
			total.unpriced = unpriced.sort((a, b) => b.count - a.count || a.model.localeCompare(b.model));
			if (n.groupBy !== void 0) {
				const rows = [];
				for (const [g, e] of totals.groups) {
					const rec = {
						key: groups.values[g],
						...emptyCostRecord(),
						sessionCount: e.sessions.size
					};
					fill(rec, e.t);
					rows.push(rec);
				}
				const chronological = n.groupBy === "day" || n.groupBy === "week" || n.groupBy === "month";
				rows.sort(chronological ? (a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0 : (a, b) => b.totalUsd - a.totalUsd || (a.key < b.key ? -1 : 1));
				const breakdowns = {};
				for (const r of rows) breakdowns[r.key] = r;
				total.breakdowns = breakdowns;
			}
			return total;
		}
	};
}
/**
* Fold usage records into a CostSummary: any iterable or async iterable of records or of record batches
* (`scanUsage()`, `scanUsageBatches()`, an array).
* @example
* const summary = await foldCost(scanUsage({ agents: ['claude'] }), { groupBy: 'model', since: new Date('2026-01-01') });
* console.log(summary.totalUsd, summary.breakdowns);
*/
async function foldCost(records, options = {}) {
	const fold = createCostFold(options);
	for await (const r of records) if (Array.isArray(r)) for (const x of r) fold.add(x);
	else fold.add(r);
	return fold.result();
}
var MAX_PENDING, NOT_FOUND, UNKNOWN_GROUP, UNTAGGED_GROUP, F_IN, F_OUT, F_REASONING, F_CACHE_READ, F_CACHE_WRITE, F_CACHE_WRITE_1H, F_NANO_USD, F_OFFSET, NF, I_GROUPS, I_SESSION, I_FILE, I_UNPRICED, NI, Interner;
var init_fold$1 = __esmMin((async () => {
	await init_filter();
	init_fold_state();
	init_fold_totals();
	await init_key_table();
	MAX_PENDING = 4096;
	NOT_FOUND = 2147483646;
	UNKNOWN_GROUP = "(unknown)";
	UNTAGGED_GROUP = "(untagged)";
	F_IN = 0;
	F_OUT = 1;
	F_REASONING = 2;
	F_CACHE_READ = 3;
	F_CACHE_WRITE = 4;
	F_CACHE_WRITE_1H = 5;
	F_NANO_USD = 6;
	F_OFFSET = 7;
	NF = 8;
	I_GROUPS = 0;
	I_SESSION = 1;
	I_FILE = 2;
	I_UNPRICED = 3;
	NI = 4;
	Interner = class {
		values = [];
		#ids = /* @__PURE__ */ new Map();
		constructor(values = []) {
			for (const v of values) this.id(v);
		}
		id(s) {
			let i = this.#ids.get(s);
			if (i === void 0) {
				i = this.values.length;
				this.values.push(s);
				this.#ids.set(s, i);
			}
			return i;
		}
	};
}));
// dist/src/cost/incremental.js
/**
* The totals fold, incremental across runs. A report's fold state (the dedup table, the slot columns, the
* interned strings: src/cost/fold-state.ts) is kept in the event cache's `folds` table under a key of
* everything the result depends on (the query, the sources and their parsers, the price data, overrides and
* rules, the tags, the time zone and its tz data). The next run with the same key restores it and folds
* only what changed since: the event cache's incremental scan (ScanDelta) yields the records the state does
* not hold (appended lines, new files) and lists the ones it holds that are gone.
*
* Why that is exact: the fold keeps, per dedup key, the copy that beats every other copy (a total order).
* Folding the additions into the restored state gives the winner over old ∪ added records; that equals the
* winner over the current records exactly when no removed record is the one counted (`CostFold.holds`). A
* removal whose identical twin was added back (a replaced tail re-read unchanged) is no removal at all.
* Whenever that does not hold, or the scan could not describe the change (another process updated a file
* the state covers, a covered file left the selection, the cache was rebuilt), the fold starts from scratch
* over the warm cache, and that state is stored instead. Results never depend on whether a snapshot was used
* (test/fold-snapshots.test.ts compares both over sequences of appends, rewrites, deletions and resumes).
*
* Pricers and tag indexes without a `fingerprint` (made by the caller) are never cached.
*/
/** The snapshot key of a query: a hash of everything its result depends on besides the records. */
function snapshotKey(n, scan) {
	if (n.pricer.fingerprint === void 0 || n.tagIndex !== void 0 && n.tagIndex.fingerprint === void 0) return void 0;
	const parts = {
		v: SNAPSHOT_KEY_VERSION,
		state: 3,
		core: 1,
		sessionfold: sessionfoldVersion(),
		sources: scan.sources.map((s) => [
			s.codec.id,
			getParserString(s.codec),
			[...s.roots].sort()
		]),
		retainDeleted: scan.retainDeleted,
		scanSince: scan.since ?? null,
		agents: n.agents === void 0 ? null : [...n.agents].sort(),
		since: Number.isFinite(n.sinceMs) ? n.sinceMs : null,
		until: Number.isFinite(n.untilMs) ? n.untilMs : null,
		model: n.model ?? null,
		tags: n.tags === void 0 ? null : [...n.tags].sort(),
		cwd: n.cwd ?? null,
		groupBy: n.groupBy ?? null,
		timeZone: n.calendar.timeZone,
		tzData: process.versions.tz ?? process.versions.icu ?? null,
		mode: n.mode,
		prices: n.pricer.fingerprint,
		tagIndex: n.tagIndex?.fingerprint ?? null
	};
	return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}
/**
* The change count a snapshot of this run may claim: the count at the start plus this run's own writes, when
* the cache's count is exactly that now (nobody else wrote meanwhile); else the count at the start, which
* makes the next run scan (safe: a snapshot never claims a write it did not see).
*/
function changesSeen(snaps, start, delta) {
	const own = start + (delta.writes ?? 0);
	try {
		return snaps.changes() === own ? own : start;
	} catch {
		return start;
	}
}
function dropSnapshot(snaps, key) {
	try {
		snaps.delete(key);
	} catch {}
}
function sameGens(a, b) {
	if (a.size !== b.size) return false;
	for (const [id, gen] of a) if (b.get(id) !== gen) return false;
	return true;
}
async function foldInto(fold, scan, discovery) {
	let n = 0;
	for await (const batch of scanUsageBatches(scan, discovery)) {
		for (const r of batch) fold.add(r);
		n += batch.length;
	}
	return n;
}
/**
* `totalCost` through the fold snapshots (see the module header). Same result as a fresh fold, always.
* @example
* const info = {} as FoldRunInfo;
* const s = await totalCostIncremental({ groupBy: 'day' }, {}, info); // info.snapshot: 'hit' on a warm run
*/
async function totalCostIncremental(options, scan, info = {
	snapshot: "off",
	folded: 0,
	removed: 0,
	saved: false,
	scanned: false
}) {
	Object.assign(info, {
		snapshot: "off",
		folded: 0,
		removed: 0,
		saved: false,
		scanned: true
	});
	const n = normalizeCostOptions(options);
	const foldOptions = {
		...options,
		pricer: n.pricer,
		...n.tagIndex !== void 0 && { tagIndex: n.tagIndex }
	};
	const ns = normalizeScanOptions(scan);
	const key = options.snapshots === false || !ns.cache ? void 0 : snapshotKey(n, ns);
	if (key === void 0) return foldCost(scanUsageBatches(scan), foldOptions);
	let snaps;
	try {
		snaps = FoldSnapshots.open(ns.cachePath, ns.onWarning);
	} catch {
		return foldCost(scanUsageBatches(scan), foldOptions);
	}
	try {
		let snap;
		let changesAtStart = -1;
		try {
			snap = snaps.get(key);
			changesAtStart = snap?.changesNow ?? snaps.changes();
			if (snap !== void 0) n.pricer.seed?.(JSON.parse(snap.prices));
		} catch {
			snap = void 0;
		}
		const discovery = await discoverUsageFiles(scan);
		const stats = discoveryStats(discovery);
		if (snap !== void 0 && snap.changesThen === changesAtStart && changesAtStart >= 0 && snap.stats === stats) {
			info.snapshot = "hit";
			info.scanned = false;
			return JSON.parse(snap.summary);
		}
		let fold;
		let lost = false;
		const restore = () => {
			if (fold !== void 0 || lost) return fold;
			if (snap === void 0) return fold = createCostFold(foldOptions);
			const version = snap.version;
			try {
				const state = snaps.state(key, version);
				if (state !== void 0) {
					const columns = (c) => {
						const piece = snaps.piece(key, version, columnSeq(c));
						if (piece === void 0) throw new SnapshotLost();
						return piece;
					};
					return fold = createCostFold(foldOptions, {
						header: state.header,
						hashes: state.hashes,
						columns
					});
				}
			} catch {
				dropSnapshot(snaps, key);
			}
			lost = true;
		};
		/** Run `fn` on the restored fold; a state that stopped reading loses the restore (the fold starts over). */
		const onFold = (fn) => {
			const f = restore();
			if (f === void 0) return;
			try {
				fn(f);
			} catch (e) {
				if (!(e instanceof SnapshotLost || e instanceof RangeError)) throw e;
				if (e instanceof RangeError) dropSnapshot(snaps, key);
				lost = true;
				fold = void 0;
			}
		};
		let delta = newScanDelta(snap?.gens ?? /* @__PURE__ */ new Map(), snaps.instance);
		info.snapshot = snap === void 0 ? "miss" : "hit";
		for await (const batch of scanUsageBatches({
			...scan,
			delta
		}, discovery)) {
			onFold((f) => {
				for (const r of batch) f.add(r);
			});
			info.folded += batch.length;
		}
		info.removed = delta.removed.length;
		/** The cache's change count this run's snapshot stands for (see `changesSeen`). */
		let changes = changesSeen(snaps, changesAtStart, delta);
		if (snap !== void 0 && info.folded === 0 && info.removed === 0 && delta.exact && !lost) {
			if ((!sameGens(snap.gens, delta.gens) || snap.changesThen !== changes || snap.stats !== stats) && delta.usedInstance === snaps.instance) try {
				info.saved = snaps.put(key, {
					gens: delta.gens,
					baseVersion: snap.version,
					changes,
					stats
				});
			} catch (e) {
				ns.onWarning(`Could not store the report's fold snapshot in ${ns.cachePath}: ${e.message}`);
			}
			return JSON.parse(snap.summary);
		}
		let held = false;
		if (info.removed > 0) onFold((f) => {
			for (const r of delta.removed) if (f.holds(r)) held = true;
		});
		let summary;
		if (!held && fold !== void 0) onFold((f) => summary = f.result());
		let exact = delta.exact && !lost && fold !== void 0 && !held && summary !== void 0;
		if (!exact || fold === void 0 || summary === void 0) {
			if (snap !== void 0) info.snapshot = lost ? "miss" : "fallback";
			fold = createCostFold(foldOptions);
			delta = newScanDelta(/* @__PURE__ */ new Map(), snaps.instance);
			info.folded = await foldInto(fold, {
				...scan,
				delta
			}, discovery);
			exact = false;
			summary = fold.result();
			changes = changesSeen(snaps, changes, delta);
		}
		if (delta.exact && delta.usedInstance === snaps.instance) try {
			const baseVersion = exact ? snap?.version : void 0;
			const restored = baseVersion !== void 0;
			const out = fold.exportState(restored);
			const base = {
				gens: delta.gens,
				header: out.header,
				prices: JSON.stringify(n.pricer.exportResolved?.() ?? []),
				summary: JSON.stringify(summary),
				seqCount: out.seqCount,
				changes,
				stats
			};
			info.saved = snaps.put(key, {
				...base,
				pieces: out.pieces,
				...restored && { baseVersion }
			});
		} catch (e) {
			if (!(e instanceof SnapshotLost)) ns.onWarning(`Could not store the report's fold snapshot in ${ns.cachePath}: ${e.message}`);
		}
		return summary;
	} finally {
		snaps.close();
	}
}
var SNAPSHOT_KEY_VERSION;
var init_incremental = __esmMin((async () => {
	init_codec();
	init_events$1();
	init_versions();
	init_folds();
	await init_options();
	await init_scan();
	init_types();
	await init_fold$1();
	init_fold_state();
	await init_filter();
	SNAPSHOT_KEY_VERSION = 1;
}));
// dist/src/cost/total.js
/** The scan of an aggregation, in batches (one await per batch, not per record). */
function scanFor(options, extra = {}) {
	return scanUsageBatches(scanOptionsFor(options, extra));
}
/** Codec ids of the agents an aggregation selects (undefined: all). Unknown names throw AGENT_NOT_FOUND. */
function selectedAgents(options) {
	const names = [...options.agent !== void 0 ? [options.agent] : [], ...options.agents ?? []];
	return names.length > 0 ? [...new Set(names.map((a) => getCodec(a).id))] : void 0;
}
/** Scan options for an aggregation. */
function scanOptionsFor(options, extra = {}) {
	const agents = selectedAgents(options);
	return {
		...agents !== void 0 && { agents },
		...options.roots !== void 0 && { roots: options.roots },
		...options.since !== void 0 && { since: options.since },
		...options.cache !== void 0 && { cache: options.cache },
		...options.cachePath !== void 0 && { cachePath: options.cachePath },
		...options.env !== void 0 && { env: options.env },
		...extra
	};
}
/**
* Total cost and tokens of every selected agent's history. With the event cache (the default), the fold's
* state is kept per query and the next run folds only what changed (src/cost/incremental.ts); `info` says
* how this run went.
* @example
* const s = await totalCost({ since: new Date('2026-01-01'), groupBy: 'model' });
* console.log(`$${s.totalUsd.toFixed(2)} over ${s.sessionCount} sessions`, s.unpriced);
*/
async function totalCost(options = {}, scan, info) {
	return totalCostIncremental(options, scanOptionsFor(options, scan), info);
}
var init_total = __esmMin((async () => {
	await init_registry();
	await init_scan();
	await init_incremental();
}));
// dist/src/cost/format.js
/** The cost cell: `$1.23`, `$1.23*` when some usage of the row is unpriced, `n/a*` when all of it is. */
function costCell(r) {
	if (r.unpricedCount > 0 && r.unpricedCount === r.requestCount) return "n/a*";
	return r.unpricedCount > 0 ? `${usd(r.totalUsd)}*` : usd(r.totalUsd);
}
function cells(r) {
	return [
		int(r.sessionCount),
		int(r.requestCount),
		int(r.inputTokens),
		int(r.outputTokens),
		int(r.cacheWriteTokens),
		int(r.cacheReadTokens),
		int(totalTokens(r)),
		costCell(r)
	];
}
function rowsOf(s) {
	return Object.values(s.breakdowns ?? {});
}
function unpricedLines(s) {
	if (s.unpriced.length === 0) return [];
	const out = [`* Unpriced usage, not included in the cost (${int(s.unpricedCount)} request${s.unpricedCount === 1 ? "" : "s"}):`];
	const names = s.unpriced.map((u) => u.provider ? `${u.model} (${u.provider})` : u.model);
	const w = Math.max(...names.map((x) => x.length));
	s.unpriced.forEach((u, i) => {
		out.push(`  ${names[i].padEnd(w)}  ${int(u.count).padStart(7)} req  ${int(u.inputTokens)} input, ${int(u.outputTokens)} output, ${int(u.cacheReadTokens)} cache read, ${int(u.cacheWriteTokens)} cache write tokens`);
	});
	out.push("  Price them in a prices file (--prices, $SESSIONFOLD_PRICES or ~/.config/sessionfold/prices.json).");
	return out;
}
/** The terminal table. */
function renderTable$1(s, o) {
	const head = [o.groupBy ? GROUP_LABELS[o.groupBy] : "", ...HEADERS];
	const body = rowsOf(s).map((r) => [r.key, ...cells(r)]);
	const total = ["Total", ...cells(s)];
	const all = [
		head,
		...body,
		total
	];
	const widths = head.map((_, c) => Math.max(...all.map((row) => row[c].length)));
	const line = (row) => row.map((x, c) => c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c])).join("  ").trimEnd();
	const rule = widths.map((w) => "─".repeat(w)).join("  ");
	const out = [
		[
			`Cost${o.groupBy ? ` by ${o.groupBy}` : ""}`,
			...o.timeZone ? [`time zone ${o.timeZone}`] : [],
			...o.mode ? [`mode ${o.mode}`] : []
		].join(" · "),
		"",
		line(head),
		rule,
		...body.map(line),
		...body.length > 0 ? [rule] : [],
		line(total)
	];
	const unpriced = unpricedLines(s);
	if (unpriced.length > 0) out.push("", ...unpriced);
	return out.join("\n") + "\n";
}
/** A GitHub-flavoured Markdown table. */
function renderMarkdown$1(s, o) {
	const esc = (x) => x.replace(/\|/g, "\\|");
	const head = [o.groupBy ? GROUP_LABELS[o.groupBy] : "", ...HEADERS];
	const out = [`| ${head.join(" | ")} |`, `|${head.map((_, i) => i === 0 ? " :--- " : " ---: ").join("|")}|`];
	const md = (c) => c.replace(/\*/g, "\\*");
	for (const r of rowsOf(s)) out.push(`| ${[esc(r.key), ...cells(r).map(md)].join(" | ")} |`);
	out.push(`| ${["**Total**", ...cells(s).map((c) => `**${md(c)}**`)].join(" | ")} |`);
	if (s.unpriced.length > 0) {
		out.push("", `\\* Unpriced usage, not included in the cost:`, "");
		for (const u of s.unpriced) out.push(`- \`${u.model}\`${u.provider ? ` (${u.provider})` : ""}: ${int(u.count)} request${u.count === 1 ? "" : "s"}, ${int(u.inputTokens)} input, ${int(u.outputTokens)} output, ${int(u.cacheReadTokens)} cache read, ${int(u.cacheWriteTokens)} cache write tokens`);
	}
	return out.join("\n") + "\n";
}
/** Quote a CSV field when it needs it (RFC 4180). */
function csvField(v) {
	if (v === void 0 || v === null) return "";
	const s = String(v);
	return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, "\"\"")}"` : s;
}
/** CSV: one row per group (or one `total` row without grouping). Costs unrounded. */
function renderCsv(s, o) {
	const rows = o.groupBy ? rowsOf(s) : [{
		...s,
		key: "total"
	}];
	const out = [CSV_COLUMNS.join(",")];
	for (const r of rows) out.push([
		r.key,
		r.sessionCount,
		r.requestCount,
		r.inputTokens,
		r.outputTokens,
		r.thinkingTokens,
		r.cacheReadTokens,
		r.cacheWriteTokens,
		r.cacheWrite1hTokens,
		totalTokens(r),
		r.totalUsd,
		r.unpricedCount
	].map(csvField).join(","));
	return out.join("\n") + "\n";
}
/** Render a summary in one of the report formats. */
function renderCostSummary(s, format, o) {
	switch (format) {
		case "json": return JSON.stringify(s, null, 2) + "\n";
		case "csv": return renderCsv(s, o);
		case "markdown": return renderMarkdown$1(s, o);
		case "table": return renderTable$1(s, o);
	}
}
var COST_FORMATS, GROUP_LABELS, int, usd, totalTokens, HEADERS, CSV_COLUMNS;
var init_format = __esmMin((() => {
	COST_FORMATS = [
		"table",
		"json",
		"csv",
		"markdown"
	];
	GROUP_LABELS = {
		agent: "Agent",
		model: "Model",
		day: "Day",
		week: "Week",
		month: "Month",
		session: "Session",
		project: "Project",
		tag: "Tag"
	};
	int = (n) => {
		return Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	};
	usd = (n) => {
		const cents = Math.round(n * 100);
		const s = (Math.abs(cents) / 100).toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
		return `${cents < 0 ? "-" : ""}$${s}`;
	};
	totalTokens = (r) => r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens;
	HEADERS = [
		"Sessions",
		"Requests",
		"Input",
		"Output",
		"Cache Write",
		"Cache Read",
		"Total Tokens",
		"Cost (USD)"
	];
	CSV_COLUMNS = [
		"group",
		"sessions",
		"requests",
		"input_tokens",
		"output_tokens",
		"thinking_tokens",
		"cache_read_tokens",
		"cache_write_tokens",
		"cache_write_1h_tokens",
		"total_tokens",
		"cost_usd",
		"unpriced_requests"
	];
}));
// dist/src/sessions/cost.js
/** Add one usage event (priced at `usd`, undefined when it has no price) to `rec`. */
function addUsage(rec, u, usd) {
	if (usd === void 0) rec.unpricedCount++;
	else rec.totalUsd += usd;
	rec.inputTokens += u.inputTokens;
	rec.outputTokens += u.outputTokens;
	rec.thinkingTokens += u.reasoningTokens;
	rec.cacheReadTokens += u.cacheReadTokens;
	rec.cacheWriteTokens += u.cacheWriteTokens;
	rec.cacheWrite1hTokens += u.cacheWrite1hTokens;
	rec.cachedTokens += u.cacheReadTokens + u.cacheWriteTokens;
	rec.requestCount++;
}
function bindPricer(pricer, mode) {
	return (u) => {
		const r = pricer.price(u, mode);
		return r.usd !== void 0 && Number.isFinite(r.usd) ? r.usd : void 0;
	};
}
/** The cost module's pricer, loaded on first use (prices are only needed by folds that read usage). */
async function loadDefaultPricer(options) {
	const { createPricer } = await Promise.resolve().then(() => (init_pricing(), pricing_exports));
	return createPricer({
		env: options.env,
		...options.pricesFile !== void 0 && { pricesFile: options.pricesFile }
	});
}
/** `$1.23`, `$0.0042`, `-` for undefined; unpriced usage is flagged with `+?`. */
function formatUsd(cost) {
	if (cost === void 0) return "-";
	const v = cost.totalUsd;
	const s = v === 0 ? "$0.00" : v < .01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
	return cost.unpricedCount > 0 ? `${s}+?` : s;
}
var emptyCost;
var init_cost$1 = __esmMin((async () => {
	await init_fold$1();
	emptyCost = emptyCostRecord;
}));
// dist/src/sessions/context.js
/**
* What every SessionManager method shares: options normalized once, roots per codec, discovery with file
* stats, the pricer (loaded once, on first need), tags, and a bounded-concurrency map. Nothing here parses a
* file: discovery is the codec's `discover()`, stats are `fs.stat`.
*/
function normalizeManagerOptions(user = {}) {
	const costMode = user.costMode ?? "auto";
	if (!COST_MODES.includes(costMode)) throw invalidOption("costMode", COST_MODES.join("|"), user.costMode);
	const concurrency = user.concurrency ?? 8;
	if (!Number.isInteger(concurrency) || concurrency < 1) throw invalidOption("concurrency", "a positive integer", user.concurrency);
	if (user.roots !== void 0 && (user.roots === null || typeof user.roots !== "object")) throw invalidOption("roots", "an object of agent → string[]", user.roots);
	return {
		env: user.env ?? process.env,
		roots: user.roots ?? {},
		costMode,
		pricer: user.pricer,
		pricesFile: user.pricesFile,
		concurrency,
		cache: user.cache ?? true,
		cachePath: user.cachePath
	};
}
/** The native id a file's path tells, else its name without extension. */
function fileSessionId(file) {
	return file.sessionId ?? basename(file.path).replace(/\.[^.]+$/, "");
}
/** Map with at most `limit` calls in flight; results in input order. */
async function mapLimit(items, limit, fn) {
	const out = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const i = next++;
			out[i] = await fn(items[i], i);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return out;
}
var COST_MODES, ManagerContext;
var init_context = __esmMin((async () => {
	init_errors();
	init_tags();
	await init_cost$1();
	COST_MODES = [
		"auto",
		"calculate",
		"display"
	];
	ManagerContext = class {
		options;
		#price;
		constructor(options) {
			this.options = options;
		}
		rootsFor(codec) {
			const o = this.options.roots;
			return o[codec.id] ?? codec.aliases.map((a) => o[a]).find((r) => r !== void 0) ?? codec.defaultRoots(this.options.env);
		}
		/** The pricing function, built once per manager. */
		price() {
			this.#price ??= (async () => {
				return bindPricer(this.options.pricer ?? await loadDefaultPricer({
					env: this.options.env,
					pricesFile: this.options.pricesFile
				}), this.options.costMode);
			})();
			return this.#price;
		}
		/** Tags, re-read per call so edits to the tags file show up without a new manager. */
		tags() {
			return loadTags(this.options.env);
		}
		/** True when any root of the codec exists (the agent has storage on this machine). */
		async hasStorage(codec) {
			for (const r of this.rootsFor(codec)) if (await stat(r).then(() => true, () => false)) return true;
			return false;
		}
		/** Every session file of the codec with size and mtime; missing roots give nothing; vanished files are skipped. */
		async discover(codec, includeSubagents) {
			const files = [];
			for await (const f of codec.discover(this.rootsFor(codec))) if (includeSubagents || f.subagent !== true) files.push(f);
			return (await mapLimit(files, this.options.concurrency * 4, async (file) => {
				try {
					const s = await stat(file.path);
					return {
						codec,
						file,
						size: s.size,
						mtimeMs: s.mtimeMs
					};
				} catch {
					return;
				}
			})).filter((x) => x !== void 0);
		}
	};
}));
// dist/src/sessions/diff.js
function lcsTable(a, b, aFrom, aTo, bFrom, bTo, out) {
	const n = aTo - aFrom;
	const m = bTo - bFrom;
	const w = m + 1;
	const t = new Uint32Array((n + 1) * w);
	for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) t[i * w + j] = a[aFrom + i] === b[bFrom + j] ? t[(i + 1) * w + j + 1] + 1 : Math.max(t[(i + 1) * w + j], t[i * w + j + 1]);
	let i = 0;
	let j = 0;
	while (i < n && j < m) if (a[aFrom + i] === b[bFrom + j]) out.push({
		op: "eq",
		i: aFrom + i++,
		j: bFrom + j++
	});
	else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) out.push({
		op: "del",
		i: aFrom + i++,
		j: -1
	});
	else out.push({
		op: "ins",
		i: -1,
		j: bFrom + j++
	});
	while (i < n) out.push({
		op: "del",
		i: aFrom + i++,
		j: -1
	});
	while (j < m) out.push({
		op: "ins",
		i: -1,
		j: bFrom + j++
	});
}
/** LCS lengths of a[aFrom..aTo) against every prefix of b[bFrom..bTo) (forward) or suffix (reverse). */
function lcsRow(a, b, aFrom, aTo, bFrom, bTo, reverse) {
	const m = bTo - bFrom;
	let prev = new Uint32Array(m + 1);
	let cur = new Uint32Array(m + 1);
	for (let k = 0; k < aTo - aFrom; k++) {
		const x = reverse ? a[aTo - 1 - k] : a[aFrom + k];
		for (let j = 1; j <= m; j++) {
			const y = reverse ? b[bTo - j] : b[bFrom + j - 1];
			cur[j] = x === y ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
		}
		[prev, cur] = [cur, prev];
	}
	return prev;
}
function hirschberg(a, b, aFrom, aTo, bFrom, bTo, out) {
	const n = aTo - aFrom;
	const m = bTo - bFrom;
	if (n === 0) {
		for (let j = bFrom; j < bTo; j++) out.push({
			op: "ins",
			i: -1,
			j
		});
		return;
	}
	if (m === 0) {
		for (let i = aFrom; i < aTo; i++) out.push({
			op: "del",
			i,
			j: -1
		});
		return;
	}
	if (n * m <= DP_MAX_CELLS || n === 1) {
		lcsTable(a, b, aFrom, aTo, bFrom, bTo, out);
		return;
	}
	const mid = aFrom + (n >> 1);
	const left = lcsRow(a, b, aFrom, mid, bFrom, bTo, false);
	const right = lcsRow(a, b, mid, aTo, bFrom, bTo, true);
	let best = -1;
	let split = 0;
	for (let j = 0; j <= m; j++) {
		const v = left[j] + right[m - j];
		if (v > best) [best, split] = [v, j];
	}
	hirschberg(a, b, aFrom, mid, bFrom, bFrom + split, out);
	hirschberg(a, b, mid, aTo, bFrom + split, bTo, out);
}
/** The edit script of a longest common subsequence of two key sequences. */
function alignKeys(a, b) {
	const out = [];
	let pre = 0;
	while (pre < a.length && pre < b.length && a[pre] === b[pre]) out.push({
		op: "eq",
		i: pre,
		j: pre++
	});
	let suf = 0;
	while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
	hirschberg(a, b, pre, a.length - suf, pre, b.length - suf, out);
	for (let k = suf; k > 0; k--) out.push({
		op: "eq",
		i: a.length - k,
		j: b.length - k
	});
	return out;
}
/** Operations over two message lists (see the file header). */
function diffMessages(ma, mb) {
	const ids = /* @__PURE__ */ new Map();
	const key = (m) => {
		const k = `${m.role}\u0000${m.content}`;
		let id = ids.get(k);
		if (id === void 0) ids.set(k, id = ids.size);
		return id;
	};
	const steps = alignKeys(Int32Array.from(ma, key), Int32Array.from(mb, key));
	const operations = [];
	const stats = {
		removals: 0,
		additions: 0,
		modifications: 0,
		unchanged: 0
	};
	let dels = [];
	let inss = [];
	const flushGap = () => {
		let ptr = 0;
		for (const i of dels) {
			const role = ma[i]?.role;
			let k = ptr;
			while (k < inss.length && mb[inss[k]]?.role !== role) k++;
			if (k < inss.length) {
				for (; ptr < k; ptr++) {
					operations.push({
						type: "addition",
						indexB: inss[ptr],
						messageB: mb[inss[ptr]]
					});
					stats.additions++;
				}
				const j = inss[k];
				operations.push({
					type: "modification",
					indexA: i,
					indexB: j,
					messageA: ma[i],
					messageB: mb[j]
				});
				stats.modifications++;
				ptr = k + 1;
			} else {
				operations.push({
					type: "removal",
					indexA: i,
					messageA: ma[i]
				});
				stats.removals++;
			}
		}
		for (; ptr < inss.length; ptr++) {
			operations.push({
				type: "addition",
				indexB: inss[ptr],
				messageB: mb[inss[ptr]]
			});
			stats.additions++;
		}
		dels = [];
		inss = [];
	};
	for (const s of steps) if (s.op === "del") dels.push(s.i);
	else if (s.op === "ins") inss.push(s.j);
	else {
		flushGap();
		operations.push({
			type: "unchanged",
			indexA: s.i,
			indexB: s.j,
			messageA: ma[s.i],
			messageB: mb[s.j]
		});
		stats.unchanged++;
	}
	flushGap();
	return {
		operations,
		stats
	};
}
/** The SessionDiff of two loaded sessions. */
function diffSessions(a, b) {
	return {
		a: {
			agent: a.agent,
			sessionId: a.sessionId,
			unifiedId: a.unifiedId
		},
		b: {
			agent: b.agent,
			sessionId: b.sessionId,
			unifiedId: b.unifiedId
		},
		...diffMessages(a.messages, b.messages)
	};
}
var DP_MAX_CELLS;
var init_diff = __esmMin((() => {
	DP_MAX_CELLS = 4e6;
}));
// dist/src/sessions/markdown.js
/** 1234567 → `1,234,567` (locale-independent). */
function formatInt(n) {
	return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
function fenceFor(text) {
	let longest = 0;
	for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
	return "`".repeat(Math.max(3, longest + 1));
}
function cut(text, maxLines) {
	if (maxLines === void 0) return text;
	const lines = text.split("\n");
	if (lines.length <= maxLines) return text;
	return `${lines.slice(0, maxLines).join("\n")}\n… ${lines.length - maxLines} more lines (sessionfold sessions export shows everything)`;
}
function fenced(text, lang, o) {
	const body = cut(text, o.maxBlockLines);
	const fence = fenceFor(body);
	return `${fence}${lang}\n${body}\n${fence}`;
}
function valueText(v) {
	if (typeof v === "string") return {
		text: v,
		lang: ""
	};
	try {
		return {
			text: JSON.stringify(v, null, 2) ?? String(v),
			lang: "json"
		};
	} catch {
		return {
			text: String(v),
			lang: ""
		};
	}
}
function costLine(c) {
	const req = `${formatInt(c.requestCount)} request${c.requestCount === 1 ? "" : "s"}`;
	const unpriced = c.unpricedCount > 0 ? `, ${formatInt(c.unpricedCount)} unpriced` : "";
	return `${formatUsd(c)} (${req}${unpriced})`;
}
function header(s) {
	const codec = findCodec(s.agent);
	const lines = [`# ${s.title === "" ? "(untitled session)" : s.title.replace(/\n/g, " ")}`, ""];
	const item = (k, v) => lines.push(`- **${k}:** ${v}`);
	item("Agent", codec !== void 0 ? `${codec.displayName} (\`${s.agent}\`)` : `\`${s.agent}\``);
	item("Session", `\`${s.unifiedId}\``);
	if (s.model !== void 0) item("Model", `\`${s.model}\``);
	item("Created", s.createdAt.toISOString());
	item("Updated", s.updatedAt.toISOString());
	if (s.cwd !== void 0) item("Working directory", `\`${s.cwd}\``);
	if (s.forkedFrom !== void 0) item("Forked from", `\`${s.forkedFrom}\``);
	item("Messages", `${formatInt(s.messages.length)} (${formatInt(s.turnCount)} turn${s.turnCount === 1 ? "" : "s"})`);
	item("Cost", s.cost === void 0 ? "no usage recorded" : costLine(s.cost));
	if (s.tags.length > 0) item("Tags", s.tags.join(", "));
	lines.push("", "---", "");
	return lines;
}
function message(m, o) {
	const lines = [`### ${ROLE_HEADINGS[m.role]}`];
	const meta = [];
	if (m.timestamp !== void 0) meta.push(m.timestamp.toISOString());
	if (m.subtype !== void 0) meta.push(m.subtype);
	if (m.role === "assistant" && m.model !== void 0) meta.push(`\`${m.model}\``);
	if (m.cost !== void 0) meta.push(formatUsd(m.cost));
	if (m.tokenUsage !== void 0) meta.push(`${formatInt(m.tokenUsage.inputTokens)} in / ${formatInt(m.tokenUsage.outputTokens)} out / ${formatInt(m.tokenUsage.cachedTokens ?? 0)} cached`);
	if (m.toolResult !== void 0) meta.push(`result of \`${m.toolResult.toolName || "tool"}\` (\`${m.toolResult.toolCallId}\`)${m.toolResult.isError ? " · error" : ""}`);
	if (meta.length > 0) lines.push("", `_${meta.join(" · ")}_`);
	if (m.thinking !== void 0) lines.push("", "<details>", "<summary>Thinking</summary>", "", cut(m.thinking, o.maxBlockLines), "", "</details>");
	if (m.role === "tool" && m.toolResult !== void 0) {
		const out = m.toolResult.output;
		const v = out !== null && typeof out === "object" && /^[[{]/.test(m.content) ? valueText(out) : {
			text: m.content,
			lang: ""
		};
		if (v.text !== "") lines.push("", fenced(v.text, v.lang, o));
	} else if (m.content !== "") lines.push("", m.content);
	for (const c of m.toolCalls ?? []) {
		const v = valueText(c.input ?? null);
		const flags = [c.durationMs !== void 0 ? `${formatInt(c.durationMs)} ms` : void 0, c.isError ? "error" : void 0].filter(Boolean);
		lines.push("", `**Tool call:** \`${c.toolName}\` (\`${c.toolCallId}\`)${flags.length > 0 ? ` · ${flags.join(" · ")}` : ""}`, "", fenced(v.text, v.lang, o));
	}
	lines.push("");
	return lines;
}
function costSummary(s) {
	const lines = [
		"---",
		"",
		"## Cost summary",
		""
	];
	const models = Object.entries(s.costByModel ?? {});
	if (s.cost === void 0 || models.length === 0) return [
		...lines,
		"No token usage recorded.",
		""
	];
	lines.push("| Model | Requests | Input | Output | Reasoning | Cache read | Cache write | Cost |", "|---|---:|---:|---:|---:|---:|---:|---:|");
	const row = (name, c) => `| ${name} | ${formatInt(c.requestCount)} | ${formatInt(c.inputTokens)} | ${formatInt(c.outputTokens)} | ${formatInt(c.thinkingTokens)} | ${formatInt(c.cacheReadTokens)} | ${formatInt(c.cacheWriteTokens)} | ${formatUsd(c)} |`;
	for (const [model, c] of models.sort((a, b) => b[1].totalUsd - a[1].totalUsd || (a[0] < b[0] ? -1 : 1))) lines.push(row(`\`${model}\``, c));
	lines.push(row("**Total**", s.cost), "");
	if (s.cost.unpricedCount > 0) lines.push(`${formatInt(s.cost.unpricedCount)} request(s) had no known price and are not in the total (marked \`+?\`).`, "");
	return lines;
}
/** Render a session as Markdown (see the file header). */
function renderMarkdown(s, options = {}) {
	const out = header(s);
	for (const m of s.messages) out.push(...message(m, options));
	out.push(...costSummary(s));
	return out.join("\n");
}
var ROLE_HEADINGS;
var init_markdown = __esmMin((async () => {
	await init_registry();
	await init_cost$1();
	ROLE_HEADINGS = {
		user: "User",
		assistant: "Assistant",
		system: "System",
		tool: "Tool"
	};
}));
// dist/src/sessions/export.js
function checkExportFormat(format) {
	if (typeof format === "string" && EXPORT_FORMATS.includes(format)) return format;
	throw invalidOption("format", EXPORT_FORMATS.join("|"), format);
}
/** The JSONL header of a session. */
function toExportHeader(s) {
	const h = {
		type: HEADER_TYPE,
		version: 1,
		agent: s.agent,
		sessionId: s.sessionId,
		unifiedId: s.unifiedId,
		title: s.title,
		createdAt: s.createdAt.toISOString(),
		updatedAt: s.updatedAt.toISOString()
	};
	if (s.model !== void 0) h.model = s.model;
	if (s.cwd !== void 0) h.cwd = s.cwd;
	if (s.forkedFrom !== void 0) h.forkedFrom = s.forkedFrom;
	if (s.tags.length > 0) h.tags = s.tags;
	h.turnCount = s.turnCount;
	h.messageCount = s.messages.length;
	if (s.cost !== void 0) h.cost = { ...s.cost };
	return h;
}
/** One JSONL message line (plus `subtype`, which the schema does not name yet). */
function toExportMessage(m, index) {
	const e = {
		type: MESSAGE_TYPE,
		index,
		role: m.role,
		content: m.content
	};
	if (m.timestamp !== void 0) e.timestamp = m.timestamp.toISOString();
	if (m.model !== void 0) e.model = m.model;
	if (m.thinking !== void 0) e.thinking = m.thinking;
	if (m.id !== void 0) e.id = m.id;
	if (m.subtype !== void 0) e.subtype = m.subtype;
	if (m.toolCalls !== void 0) e.toolCalls = m.toolCalls.map((c) => ({
		toolCallId: c.toolCallId,
		toolName: c.toolName,
		input: c.input ?? null,
		...c.output !== void 0 && { output: c.output },
		...c.durationMs !== void 0 && { durationMs: c.durationMs }
	}));
	if (m.toolResult !== void 0) e.toolResult = {
		...m.toolResult,
		output: m.toolResult.output ?? null
	};
	if (m.tokenUsage !== void 0) e.tokenUsage = { ...m.tokenUsage };
	if (m.usage !== void 0) e.usage = exportUsage(m.usage);
	if (m.cost !== void 0) e.cost = { ...m.cost };
	return e;
}
/** ExportUsage, plus `modelFallback`, `speed` and `webSearchRequests`. */
function exportUsage(u) {
	const usage = {
		model: u.model,
		...u.modelFallback === true && { modelFallback: true },
		inputTokens: u.inputTokens,
		outputTokens: u.outputTokens,
		reasoningTokens: u.reasoningTokens,
		cacheReadTokens: u.cacheReadTokens,
		cacheWriteTokens: u.cacheWriteTokens,
		cacheWrite1hTokens: u.cacheWrite1hTokens,
		singleRequest: u.singleRequest,
		dedupKey: u.dedupKey
	};
	if (u.provider !== void 0) usage.provider = u.provider;
	if (u.costUsd !== void 0) usage.costUsd = u.costUsd;
	if (u.speed !== void 0) usage.speed = u.speed;
	if (u.webSearchRequests !== void 0) usage.webSearchRequests = u.webSearchRequests;
	return usage;
}
/**
* Usage that belongs to no message, as an empty assistant line marked `orphanUsage`: a re-import counts
* it in the session's cost and, having no text, drops the message again.
*/
function toOrphanLine(u, index) {
	return {
		type: MESSAGE_TYPE,
		index,
		role: "assistant",
		content: "",
		...u.timestamp !== void 0 && { timestamp: u.timestamp },
		usage: exportUsage(u),
		orphanUsage: true
	};
}
/** The session in `format` (see the file header). */
function renderExport(s, format, markdown = {}) {
	switch (checkExportFormat(format)) {
		case "json": return `${JSON.stringify(s, null, 2)}\n`;
		case "jsonl": {
			const lines = [JSON.stringify(toExportHeader(s))];
			s.messages.forEach((m, i) => lines.push(JSON.stringify(toExportMessage(m, i))));
			let index = s.messages.length;
			for (const u of s.raw?.orphanUsage ?? []) lines.push(JSON.stringify(toOrphanLine(u, index++)));
			return `${lines.join("\n")}\n`;
		}
		case "markdown": return renderMarkdown(s, markdown);
	}
}
var EXPORT_FORMATS;
var init_export$1 = __esmMin((async () => {
	init_errors();
	init_schema$2();
	await init_markdown();
	EXPORT_FORMATS = [
		"json",
		"jsonl",
		"markdown"
	];
}));
// dist/src/sessions/fold.js
function tsMs(ts) {
	if (ts === void 0) return void 0;
	const ms = Date.parse(ts);
	return Number.isFinite(ms) && ms > 0 ? ms : void 0;
}
/** Text of a tool output: strings as they are, text blocks joined, anything else as JSON. */
function outputText(output) {
	if (output === void 0 || output === null) return "";
	if (typeof output === "string") return output;
	if (Array.isArray(output)) {
		const texts = output.map((b) => b !== null && typeof b === "object" && typeof b.text === "string" ? b.text : void 0);
		if (texts.every((t) => t !== void 0)) return texts.join("\n");
	}
	if (typeof output === "object") {
		const c = output.content;
		if (typeof c === "string" || Array.isArray(c)) return outputText(c);
	}
	try {
		return JSON.stringify(output) ?? String(output);
	} catch {
		return String(output);
	}
}
/** Whitespace collapsed, cut to `max` characters (code points), trailing space dropped: idempotent. */
function cutTitle(text, max = 100) {
	const flat = text.replace(/\s+/g, " ").trim();
	const cps = Array.from(flat);
	return cps.length <= max ? flat : cps.slice(0, max).join("").trimEnd();
}
/** The most-used model by requests (the first seen wins a tie). */
function topModel(models) {
	let model;
	let best = 0;
	for (const [m, n] of models) if (n > best) [model, best] = [m, n];
	return model;
}
function sumUsage(events) {
	const first = events[0];
	const out = {
		model: first.model,
		inputTokens: 0,
		outputTokens: 0,
		reasoningTokens: 0,
		cacheReadTokens: 0,
		cacheWriteTokens: 0,
		cacheWrite1hTokens: 0,
		singleRequest: events.length === 1 && first.singleRequest,
		dedupKey: events.map((e) => e.dedupKey).join("+"),
		requests: events.length
	};
	if (first.provider !== void 0) out.provider = first.provider;
	if (events.every((e) => e.modelFallback === true)) out.modelFallback = true;
	if (first.speed !== void 0 && events.every((e) => e.speed === first.speed)) out.speed = first.speed;
	if (events.some((e) => e.webSearchRequests !== void 0)) out.webSearchRequests = events.reduce((a, e) => a + (e.webSearchRequests ?? 0), 0);
	let native = 0;
	for (const e of events) {
		out.inputTokens += e.inputTokens;
		out.outputTokens += e.outputTokens;
		out.reasoningTokens += e.reasoningTokens;
		out.cacheReadTokens += e.cacheReadTokens;
		out.cacheWriteTokens += e.cacheWriteTokens;
		out.cacheWrite1hTokens += e.cacheWrite1hTokens;
		native = native !== void 0 && e.costUsd !== void 0 ? native + e.costUsd : void 0;
	}
	if (native !== void 0) out.costUsd = native;
	return out;
}
var SessionFold;
var init_fold = __esmMin((async () => {
	await init_cost$1();
	SessionFold = class {
		#content;
		#price;
		#drafts = [];
		#byId = /* @__PURE__ */ new Map();
		#calls = /* @__PURE__ */ new Map();
		#dedup = /* @__PURE__ */ new Set();
		#models = /* @__PURE__ */ new Map();
		#costByModel = {};
		#sessionEvents = [];
		#cost;
		#titleDraft;
		#agentTitle;
		#cwd;
		#forkedFrom;
		#subagent;
		#declaredModel;
		#startMs;
		#firstMs;
		#lastMs;
		#sessionId;
		#orphans = [];
		#unmatched = 0;
		#events = 0;
		constructor(options) {
			this.#content = options.content;
			this.#price = options.price;
		}
		/** Fold one event; unknown kinds are ignored. */
		push(e) {
			switch (e.type) {
				case "session": return this.#session(e);
				case "message": return this.#message(e);
				case "tool_call": return this.#toolCall(e);
				case "tool_result": return this.#toolResult(e);
				case "usage": return this.#usage(e);
				default: return;
			}
		}
		#seen(e) {
			this.#events++;
			if (this.#sessionId === void 0 && typeof e.sessionId === "string" && e.sessionId !== "") this.#sessionId = e.sessionId;
			this.#time(typeof e.timestamp === "string" ? e.timestamp : void 0);
		}
		#time(ts) {
			const ms = tsMs(ts);
			if (ms === void 0) return;
			if (this.#firstMs === void 0 || ms < this.#firstMs) this.#firstMs = ms;
			if (this.#lastMs === void 0 || ms > this.#lastMs) this.#lastMs = ms;
		}
		#session(e) {
			this.#events++;
			if (typeof e.nativeId === "string" && e.nativeId !== "" && this.#sessionEvents.length === 0) this.#sessionId = e.nativeId;
			this.#sessionEvents.push(e);
			this.#cwd ??= e.cwd;
			this.#forkedFrom ??= e.forkedFrom;
			this.#declaredModel ??= e.model;
			if (e.subagent !== void 0) this.#subagent ??= e.subagent;
			if (typeof e.title === "string" && e.title.trim() !== "") this.#agentTitle = e.title;
			const ms = tsMs(e.startedAt);
			if (ms !== void 0 && this.#startMs === void 0) this.#startMs = ms;
			this.#time(e.startedAt);
		}
		#newDraft(role, offset, fields) {
			const d = {
				role,
				parts: [],
				thinkingParts: [],
				hasText: false,
				hasThinking: false,
				keep: this.#content,
				offset,
				...fields
			};
			this.#drafts.push(d);
			if (d.id !== void 0) this.#byId.set(d.id, d);
			return d;
		}
		#message(e) {
			this.#seen(e);
			const last = this.#drafts[this.#drafts.length - 1];
			let d;
			if (last !== void 0 && e.nativeId !== void 0 && last.id === e.nativeId && last.role === e.role) {
				d = last;
				d.offset = e.offset;
				d.model ??= e.model;
				d.timestamp ??= e.timestamp;
			} else d = this.#newDraft(e.role, e.offset, {
				timestamp: e.timestamp,
				model: e.model,
				id: e.nativeId,
				subtype: e.subtype
			});
			const text = typeof e.text === "string" ? e.text : "";
			if (text !== "") {
				if (d.role === "user" && d.subtype === void 0 && this.#titleDraft === void 0) {
					this.#titleDraft = d;
					d.keep = true;
				}
				if (d.keep) {
					if (d.parts[d.parts.length - 1] !== text) d.parts.push(text);
				}
				d.hasText = true;
			}
			if (typeof e.thinking === "string" && e.thinking !== "") {
				if (this.#content && d.thinkingParts[d.thinkingParts.length - 1] !== e.thinking) d.thinkingParts.push(e.thinking);
				d.hasThinking = true;
			}
		}
		#toolCall(e) {
			this.#seen(e);
			let d = e.messageId !== void 0 ? this.#byId.get(e.messageId) : void 0;
			const last = this.#drafts[this.#drafts.length - 1];
			if (d === void 0 && last?.role === "assistant") d = last;
			d ??= this.#newDraft("assistant", e.offset, {
				timestamp: e.timestamp,
				id: e.messageId
			});
			const call = {
				toolCallId: e.callId,
				toolName: e.name,
				input: this.#content ? e.input : void 0
			};
			(d.toolCalls ??= []).push(call);
			this.#calls.set(e.callId, call);
		}
		#toolResult(e) {
			this.#seen(e);
			const call = this.#calls.get(e.callId);
			if (call === void 0) this.#unmatched++;
			else {
				if (this.#content) call.output = e.output;
				if (e.isError) call.isError = true;
				if (e.durationMs !== void 0) call.durationMs = e.durationMs;
			}
			const toolName = e.toolName || call?.toolName || "";
			const result = {
				toolCallId: e.callId,
				toolName,
				output: this.#content ? e.output : void 0,
				...e.isError && { isError: true }
			};
			const last = this.#drafts[this.#drafts.length - 1];
			if (last !== void 0 && last.role === "tool" && last.offset === e.offset && last.toolResult === void 0) {
				last.toolResult = result;
				return;
			}
			const d = this.#newDraft("tool", e.offset, {
				timestamp: e.timestamp,
				toolResult: result
			});
			const text = this.#content ? outputText(e.output) : "";
			if (text !== "") d.parts.push(text);
			d.hasText = this.#content ? text !== "" : e.output !== void 0 && e.output !== null && e.output !== "";
		}
		#usage(e) {
			this.#seen(e);
			if (this.#dedup.has(e.dedupKey)) return;
			this.#dedup.add(e.dedupKey);
			const usd = this.#price?.(e);
			addUsage(this.#cost ??= emptyCost(), e, usd);
			addUsage(this.#costByModel[e.model] ??= emptyCost(), e, usd);
			if (e.modelFallback !== true) this.#models.set(e.model, (this.#models.get(e.model) ?? 0) + 1);
			if (!this.#content) return;
			let d = e.messageId !== void 0 ? this.#byId.get(e.messageId) : void 0;
			if (d === void 0) {
				for (let i = this.#drafts.length - 1; i >= 0 && d === void 0; i--) if (this.#drafts[i]?.role === "assistant") d = this.#drafts[i];
			}
			if (d === void 0) {
				this.#orphans.push(e);
				return;
			}
			(d.usage ??= []).push(e);
			if (usd === void 0) d.unpriced = (d.unpriced ?? 0) + 1;
			else d.usd = (d.usd ?? 0) + usd;
		}
		finish() {
			const kept = [];
			const orphans = [...this.#orphans];
			for (const d of this.#drafts) if (d.hasText || d.hasThinking || (d.toolCalls?.length ?? 0) > 0 || d.toolResult !== void 0) kept.push(d);
			else if (d.usage !== void 0) orphans.push(...d.usage);
			let turns = 0;
			let pendingUser = false;
			for (const d of kept) if (d.role === "user" && d.subtype === void 0 && d.hasText) pendingUser = true;
			else if (d.role === "assistant" && pendingUser) {
				turns++;
				pendingUser = false;
			}
			const messages = this.#content ? kept.map((d) => this.#toMessage(d)) : [];
			const titleText = this.#titleDraft?.parts.join("\n\n");
			let model = topModel(this.#models);
			if (model === void 0) for (let i = kept.length - 1; i >= 0 && model === void 0; i--) model = kept[i]?.model;
			model ??= this.#declaredModel;
			const firstMs = this.#startMs ?? this.#firstMs;
			return {
				messages,
				messageCount: kept.length,
				turnCount: turns,
				title: this.#agentTitle !== void 0 ? cutTitle(this.#agentTitle) : titleText !== void 0 ? cutTitle(titleText) : "",
				agentTitle: this.#agentTitle !== void 0,
				...this.#cwd !== void 0 && { cwd: this.#cwd },
				...this.#forkedFrom !== void 0 && { forkedFrom: this.#forkedFrom },
				...this.#subagent !== void 0 && { subagent: this.#subagent },
				...firstMs !== void 0 && { firstMs },
				...this.#lastMs !== void 0 && { lastMs: this.#lastMs },
				...model !== void 0 && { model },
				models: this.#models,
				...this.#cost !== void 0 && { cost: this.#cost },
				costByModel: this.#costByModel,
				sessionEvents: this.#sessionEvents,
				...this.#sessionId !== void 0 && { sessionId: this.#sessionId },
				orphanUsage: orphans.map((e) => ({
					...sumUsage([e]),
					timestamp: e.timestamp
				})),
				unmatchedToolResults: this.#unmatched,
				events: this.#events
			};
		}
		#toMessage(d) {
			const m = {
				role: d.role,
				content: d.parts.join("\n\n")
			};
			if (d.timestamp !== void 0 && tsMs(d.timestamp) !== void 0) m.timestamp = new Date(d.timestamp);
			if (d.toolCalls !== void 0 && d.toolCalls.length > 0) m.toolCalls = d.toolCalls;
			if (d.toolResult !== void 0) m.toolResult = d.toolResult;
			if (d.thinkingParts.length > 0) m.thinking = d.thinkingParts.join("\n\n");
			const usageModel = d.usage?.find((u) => u.modelFallback !== true)?.model;
			if (d.model !== void 0 || usageModel !== void 0) m.model = d.model ?? usageModel;
			if (d.id !== void 0) m.id = d.id;
			if (d.subtype !== void 0) m.subtype = d.subtype;
			if (d.usage !== void 0 && d.usage.length > 0) {
				const u = sumUsage(d.usage);
				m.usage = u;
				m.tokenUsage = {
					inputTokens: u.inputTokens,
					outputTokens: u.outputTokens,
					thinkingTokens: u.reasoningTokens,
					cachedTokens: u.cacheReadTokens + u.cacheWriteTokens
				};
				const cost = emptyCost();
				for (const e of d.usage) addUsage(cost, e, void 0);
				cost.unpricedCount = d.unpriced ?? 0;
				cost.totalUsd = d.usd ?? 0;
				m.cost = cost;
			}
			return m;
		}
	};
}));
// dist/src/sessions/ids.js
/**
* `<agent>:<nativeId>`. Pure: no existence check, no validation.
* @example resolveUnifiedId('claude', 'a1b2') // 'claude:a1b2'
*/
function resolveUnifiedId(agent, nativeId) {
	return `${agent}:${nativeId}`;
}
/**
* Split a unified id on its first colon. Null when there is no colon, either side is empty, or the agent part
* names no registered codec. `agent` is the codec's canonical id (an alias resolves to its id).
* @example resolveNativeId('codex:rollout:1') // { agent: 'codex', nativeSessionId: 'rollout:1' }
*/
function resolveNativeId(unifiedId) {
	const i = unifiedId.indexOf(":");
	if (i <= 0 || i === unifiedId.length - 1) return null;
	const codec = findCodec(unifiedId.slice(0, i));
	if (codec === void 0) return null;
	return {
		agent: codec.id,
		nativeSessionId: unifiedId.slice(i + 1)
	};
}
var init_ids = __esmMin((async () => {
	await init_registry();
}));
// dist/src/sessions/get.js
/**
* `get(agent, id)`: one session, whole. The file is found by id through the codec (`locate`, or the ids
* `discover` reads off paths), never by parsing every session; then one `read()` of every event kind is
* folded (fold.ts) into messages, tool calls with their results, per-message usage and cost.
*
* Errors: AGENT_NOT_FOUND (no such codec), SESSION_NOT_FOUND (no file for the id, or it vanished),
* PARSE_ERROR (the file exists but yields no event of the codec's format, or the codec failed reading it).
*/
/** The file of session `id`, or SESSION_NOT_FOUND. */
async function locateSession(ctx, codec, id) {
	if (typeof id !== "string" || id === "") throw new SessionfoldError("SESSION_NOT_FOUND", `No ${codec.id} session with an empty id`, { agent: codec.id });
	const roots = ctx.rootsFor(codec);
	let found;
	if (codec.locate !== void 0) found = await codec.locate(roots, id);
	else for await (const f of codec.discover(roots)) if (fileSessionId(f) === id) {
		found = f;
		break;
	}
	if (found === void 0) throw new SessionfoldError("SESSION_NOT_FOUND", `No ${codec.id} session "${id}" under ${roots.join(", ") || "(no roots)"}`, { agent: codec.id });
	return found;
}
async function isBlank(path) {
	const fh = await open(path, "r");
	try {
		const buf = Buffer.alloc(4096);
		const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
		return bytesRead < buf.length && buf.subarray(0, bytesRead).toString("utf8").trim() === "";
	} finally {
		await fh.close();
	}
}
/** `get(agent, id)`: see the file header. */
async function getSession(ctx, agent, id) {
	const codec = getCodec(agent);
	const file = await locateSession(ctx, codec, id);
	let size;
	let mtimeMs;
	try {
		const s = await stat(file.path);
		size = s.size;
		mtimeMs = s.mtimeMs;
	} catch (cause) {
		throw new SessionfoldError("SESSION_NOT_FOUND", `${codec.id} session "${id}": ${file.path} is gone`, {
			agent: codec.id,
			file: file.path,
			cause
		});
	}
	const price = await ctx.price();
	const info = newReadInfo();
	const fold = new SessionFold({
		content: true,
		price
	});
	try {
		for await (const e of codec.read(file.path, { info })) fold.push(e);
	} catch (cause) {
		if (cause instanceof SessionfoldError && (cause.code === "SESSION_NOT_FOUND" || cause.code === "PARSE_ERROR")) throw cause;
		const why = cause instanceof Error ? cause.message : String(cause);
		throw new SessionfoldError("PARSE_ERROR", `Cannot read ${file.path} as ${codec.id}: ${why}`, {
			agent: codec.id,
			file: file.path,
			cause
		});
	}
	const r = fold.finish();
	if (r.events === 0 && size > 0 && !await isBlank(file.path)) throw new SessionfoldError("PARSE_ERROR", `${file.path} is not a ${codec.displayName} session: no records of its format (${info.skippedLines} malformed of ${info.lines} lines)`, {
		agent: codec.id,
		file: file.path
	});
	const session = {
		agent: codec.id,
		sessionId: id,
		unifiedId: resolveUnifiedId(codec.id, id),
		title: r.title,
		createdAt: new Date(r.firstMs ?? mtimeMs),
		updatedAt: new Date(r.lastMs ?? mtimeMs),
		turnCount: r.turnCount,
		tags: ctx.tags().tagsFor(codec.id, id, r.cwd),
		messages: r.messages
	};
	if (r.model !== void 0) session.model = r.model;
	if (r.cost !== void 0) {
		session.cost = r.cost;
		session.costByModel = r.costByModel;
	}
	if (r.cwd !== void 0) session.cwd = r.cwd;
	if (r.forkedFrom !== void 0) session.forkedFrom = r.forkedFrom;
	session.raw = {
		file: file.path,
		sizeBytes: size,
		parser: getParserString(codec),
		lines: info.lines,
		skippedLines: info.skippedLines,
		events: info.events,
		sessionEvents: r.sessionEvents.map((e) => ({ ...e })),
		orphanUsage: r.orphanUsage,
		unmatchedToolResults: r.unmatchedToolResults
	};
	return session;
}
var init_get = __esmMin((async () => {
	init_codec();
	init_errors();
	await init_registry();
	await init_context();
	await init_fold();
	await init_ids();
}));
// dist/src/sessions/peek.js
/**
* The lazy part of `list()`: a summary from file stats plus the head and tail of the file, not a full parse.
*
* A JSONL codec exposes its pure `lineCore`; we feed it the complete lines of two byte windows:
* - head: the first HEAD_BYTES, line by line, stopping as soon as the fold knows the first user prompt
*   (title) and a start time; the session line (cwd, fork parent, agent title) comes first in every format;
* - tail: the complete lines of the last 16 KiB (64 KiB when those hold no timestamp or no model), fed to a
*   fresh core state, for the latest timestamp (updatedAt), the model in use and a late agent title.
* A file no larger than FULL_PEEK_BYTES is folded whole through the same core (exact counts and cost).
* Codecs without a lineCore (SQLite, whole-document JSON) are read whole through `read()`.
*
* The tail's core starts mid-file, so events whose meaning depends on earlier lines (cumulative usage deltas,
* streaming dedup) are not trusted there: only timestamps, models and titles are taken from it.
*/
/** Feed `buf[0..len)` (starting at file offset `base`) line by line into a fresh core state. */
function feed(core, file, buf, len, base, onEvent, shouldStop) {
	const options = normalizeReadOptions({});
	const state = core.init({
		file,
		options
	});
	const splitter = new LineSplitter({
		startOffset: base,
		maxLineBytes: options.maxLineBytes,
		onLine(line, start) {
			if (line.length === 0) return;
			try {
				if (core.line(state, line, start, onEvent) === RESTART) return;
			} catch {
				return;
			}
			if (shouldStop?.() === true) throw new StopFeeding();
		},
		onLongLine: () => void 0
	});
	try {
		splitter.push(buf, len);
	} catch (e) {
		if (!(e instanceof StopFeeding)) throw e;
	}
	try {
		core.end(state, onEvent);
	} catch {}
}
/** Fold a whole file through `read()` (codecs without a lineCore, and exact reads). */
async function foldWholeFile(codec, file, price, kinds) {
	const fold = new SessionFold({
		content: false,
		price
	});
	for await (const e of codec.read(file.path, kinds === void 0 ? {} : { kinds })) fold.push(e);
	return fold.finish();
}
/** Timestamps, model and title from the complete lines of the last `window` bytes. */
async function peekTail(fh, core, path, size, window) {
	const tailStart = Math.max(0, size - window);
	const tail = Buffer.allocUnsafe(window + 1);
	const { bytesRead } = await fh.read(tail, 0, size - tailStart + (tailStart > 0 ? 1 : 0), tailStart > 0 ? tailStart - 1 : 0);
	let from = 0;
	if (tailStart > 0) {
		const lf = tail.indexOf(10);
		from = lf === -1 || lf >= bytesRead ? bytesRead : lf + 1;
	}
	const t = {};
	const base = tailStart > 0 ? tailStart - 1 : 0;
	feed(core, path, tail.subarray(from), bytesRead - from, base + from, (e) => {
		const ts = e.type === "session" ? e.startedAt : "timestamp" in e && typeof e.timestamp === "string" ? e.timestamp : void 0;
		const ms = ts === void 0 ? NaN : Date.parse(ts);
		if (Number.isFinite(ms) && ms > 0 && (t.lastMs === void 0 || ms > t.lastMs)) t.lastMs = ms;
		if (e.type === "usage" && e.modelFallback !== true && e.model !== "") t.model = e.model;
		else if (e.type === "message" && e.model !== void 0) t.model = e.model;
		if (e.type === "session" && typeof e.title === "string" && e.title.trim() !== "") t.title = e.title;
	});
	return t;
}
/** A summary's fold from the head and tail of the file (see the file header). */
async function peekFile(codec, file, size, price) {
	const core = codec.lineCoreFor?.(file.path) ?? codec.lineCore;
	if (core === void 0) return {
		fold: await foldWholeFile(codec, file, price),
		exact: true
	};
	const fh = await open(file.path, "r");
	try {
		if (size <= 131072) {
			const buf = Buffer.allocUnsafe(Math.max(1, size));
			const { bytesRead } = await fh.read(buf, 0, size, 0);
			const fold = new SessionFold({
				content: false,
				price
			});
			feed(core, file.path, buf, bytesRead, 0, (e) => fold.push(e));
			return {
				fold: fold.finish(),
				exact: true
			};
		}
		const head = Buffer.allocUnsafe(HEAD_BYTES);
		const { bytesRead: headLen } = await fh.read(head, 0, HEAD_BYTES, 0);
		const fold = new SessionFold({
			content: false,
			price: void 0
		});
		let haveUser = false;
		let haveTime = false;
		feed(core, file.path, head, headLen, 0, (e) => {
			fold.push(e);
			if (e.type === "message" && e.role === "user" && e.subtype === void 0 && e.text !== "") haveUser = true;
			if (e.type === "session" && e.startedAt !== void 0 || "timestamp" in e && typeof e.timestamp === "string") haveTime = true;
		}, () => haveUser && haveTime);
		let t = {};
		for (const window of TAIL_WINDOWS) {
			t = await peekTail(fh, core, file.path, size, window);
			if (t.lastMs !== void 0 && t.model !== void 0) break;
		}
		return {
			fold: fold.finish(),
			tail: t,
			exact: false
		};
	} finally {
		await fh.close();
	}
}
var HEAD_BYTES, TAIL_WINDOWS, StopFeeding;
var init_peek = __esmMin((async () => {
	init_codec();
	init_core();
	init_line_splitter();
	await init_fold();
	HEAD_BYTES = 65536;
	TAIL_WINDOWS = [16384, 65536];
	StopFeeding = class extends Error {};
}));
// dist/src/sessions/usage-scan.js
/** Usage of the files in `paths`, keyed by path; files without usage are absent. */
async function usageByFile(ctx, codec, paths, price, since) {
	const { scanUsageBatches } = await init_scan().then(() => scan_exports);
	const o = ctx.options;
	const out = /* @__PURE__ */ new Map();
	const seen = /* @__PURE__ */ new Map();
	const batches = scanUsageBatches({
		agents: [codec.id],
		roots: { [codec.id]: ctx.rootsFor(codec) },
		env: o.env,
		cache: o.cache,
		...o.cachePath !== void 0 && { cachePath: o.cachePath },
		...since !== void 0 && { since },
		onWarning: () => void 0
	});
	for await (const batch of batches) for (const r of batch) {
		if (r.retained === true || !paths.has(r.file)) continue;
		let keys = seen.get(r.file);
		if (keys === void 0) seen.set(r.file, keys = /* @__PURE__ */ new Set());
		if (keys.has(r.dedupKey)) continue;
		keys.add(r.dedupKey);
		let u = out.get(r.file);
		if (u === void 0) out.set(r.file, u = {
			cost: emptyCost(),
			models: /* @__PURE__ */ new Map()
		});
		addUsage(u.cost, r, price(r));
		if (r.modelFallback !== true) u.models.set(r.model, (u.models.get(r.model) ?? 0) + 1);
	}
	return out;
}
var init_usage_scan = __esmMin((async () => {
	await init_cost$1();
}));
// dist/src/cache/summaries.js
/** True when a row loaded by `load(agent, parser, foldKey)` was written for exactly this file state. */
function isCurrentRow(row, key) {
	return row.size === key.size && row.mtimeMs === key.mtimeMs && row.deps === key.deps;
}
/**
* Run `fn` on the store; a failure of the cache never fails the caller. Corruption moves the file aside (the
* next run rebuilds it) and closes the store; `undefined` is returned on any failure.
*/
function guardSummaries(store, fn) {
	try {
		return fn(store);
	} catch (e) {
		if (isCorruptionError(e)) {
			store.close();
			moveAside(store.path);
		}
		return;
	}
}
var SAME_KEY, SummaryStore;
var init_summaries = __esmMin((() => {
	init_db();
	SAME_KEY = "summaries.parser = excluded.parser AND summaries.size = excluded.size AND summaries.mtime_ms = excluded.mtime_ms AND summaries.deps = excluded.deps AND summaries.fold_key = excluded.fold_key";
	SummaryStore = class SummaryStore {
		path;
		#db;
		#s;
		#writeTx;
		constructor(path, db) {
			this.path = path;
			this.#db = db;
			this.#s = {
				byAgent: db.prepare("SELECT id, path, size, mtime_ms, deps, peek FROM summaries WHERE agent = ? AND parser = ? AND fold_key = ?").raw(),
				usage: db.prepare("SELECT id, parser, size, mtime_ms, deps, fold_key, usage FROM summaries WHERE id IN (SELECT value FROM json_each(?))").raw(),
				whole: db.prepare("SELECT id, parser, size, mtime_ms, deps, fold_key, whole FROM summaries WHERE id IN (SELECT value FROM json_each(?))").raw(),
				upsert: db.prepare(`INSERT INTO summaries (agent, path, parser, size, mtime_ms, deps, fold_key, updated_at, peek, usage, whole)
         VALUES (@agent, @path, @parser, @size, @mtime_ms, @deps, @fold_key, @updated_at, @peek, @usage, @whole)
         ON CONFLICT (agent, path) DO UPDATE SET
           peek = CASE WHEN ${SAME_KEY} THEN coalesce(excluded.peek, summaries.peek) ELSE excluded.peek END,
           usage = CASE WHEN ${SAME_KEY} THEN coalesce(excluded.usage, summaries.usage) ELSE excluded.usage END,
           whole = CASE WHEN ${SAME_KEY} THEN coalesce(excluded.whole, summaries.whole) ELSE excluded.whole END,
           parser = excluded.parser, size = excluded.size, mtime_ms = excluded.mtime_ms, deps = excluded.deps,
           fold_key = excluded.fold_key, updated_at = excluded.updated_at`),
				remove: db.prepare("DELETE FROM summaries WHERE agent = ? AND path = ?")
			};
			this.#writeTx = db.transaction((rows, prune, now) => {
				for (const r of rows) this.#s.upsert.run({
					agent: r.agent,
					path: r.path,
					parser: r.key.parser,
					size: r.key.size,
					mtime_ms: r.key.mtimeMs,
					deps: r.key.deps,
					fold_key: r.key.foldKey,
					updated_at: now,
					peek: r.levels.peek ?? null,
					usage: r.levels.usage ?? null,
					whole: r.levels.whole ?? null
				});
				for (const [agent, path] of prune) this.#s.remove.run(agent, path);
			});
		}
		/** Open (or create, migrate, rebuild) the event cache at `path` for its summaries. */
		static open(path, warn) {
			return new SummaryStore(path, openCacheDb(path, warn).db);
		}
		close() {
			if (this.#db.open) this.#db.close();
		}
		/** The rows of an agent written under this parser string and fold key, keyed by path, with their `peek` level. */
		load(agent, parser, foldKey) {
			const out = /* @__PURE__ */ new Map();
			for (const [id, path, size, mtimeMs, deps, peek] of this.#s.byAgent.all(agent, parser, foldKey)) out.set(path, {
				id,
				path,
				size,
				mtimeMs,
				deps,
				peek
			});
			return out;
		}
		/**
		* The `usage` or `whole` level of rows loaded before, by id, where the row still has `keys.get(id)` (null
		* where it has no such level; rows gone or re-keyed since are absent).
		*/
		level(level, keys) {
			const out = /* @__PURE__ */ new Map();
			if (keys.size === 0) return out;
			for (const [id, parser, size, mtimeMs, deps, foldKey, v] of this.#s[level].all(JSON.stringify([...keys.keys()]))) {
				const k = keys.get(id);
				if (k !== void 0 && k.parser === parser && k.foldKey === foldKey && k.size === size && k.mtimeMs === mtimeMs && k.deps === deps) out.set(id, v);
			}
			return out;
		}
		/** Write rows and delete the `[agent, path]` rows of `prune`, in one IMMEDIATE transaction. */
		write(rows, prune = []) {
			if (rows.length === 0 && prune.length === 0) return;
			this.#writeTx.immediate(rows, prune, Date.now());
		}
	};
}));
// dist/src/sessions/summary-cache.js
/**
* `list()`'s summary cache: what list learned about each session file, kept in the event cache database
* (src/cache/summaries.ts), so a warm `list` costs a stat per file instead of a head-and-tail read.
*
* Per file up to three levels, each the plain data list.ts computes from the file (types in list.ts):
* - `peek` (SummaryData, or null for a file with no event of the codec's format): the lazy summary;
* - `usage` (UsageData): cost and models of a usage-only read of the whole file;
* - `whole` (SummaryData): the exact summary of a full fold.
* Tags are not stored (they come from the tags file, read per call), nor anything derived from the path or the
* stat (agent, unifiedId, file, sizeBytes). list.ts builds every summary from such data with `fromData()`,
* on the cold path too, so a cached summary and a fresh one are the same object, key order included.
*
* Loaded by list.ts with a dynamic import (it pulls in better-sqlite3), as the scan engine is.
*
* Validity, as for the usage rows: the parser string, size, mtimeMs and dependency fingerprints of the file,
* plus the fold key (`getFoldKey`): SUMMARY_VERSION (the rules of fold.ts / peek.ts / list.ts), the versions
* of sessionfold and of the bundled price data, the cost mode and the bytes of the price-override file in
* effect. Costs are priced when a row is written, so any change to what prices them makes the rows stale
* (one cold run rebuilds them). A caller-supplied `pricer` has no fingerprint: the cache is then not used.
*/
var summary_cache_exports = /* @__PURE__ */ __exportAll({
	ListCache: () => ListCache,
	SUMMARY_VERSION: () => 2,
	getFoldKey: () => getFoldKey
});
/** Stored JSON, or undefined (a miss: the file is read again) when it does not parse. */
function parse(json) {
	try {
		return JSON.parse(json);
	} catch {
		return;
	}
}
/** `sessionfold@x genai-prices@y`. */
function packageVersions() {
	return `sessionfold@${sessionfoldVersion()} genai-prices@${priceDataVersion()}`;
}
/**
* The fold key of the manager's options: what, besides the file, a cached summary depends on. Undefined
* (no cache) with a caller-supplied pricer. The override file is hashed byte for byte, so an edit, a new file
* or a removed one changes the key; a file that would fail to load gives a key no row was written under.
*/
function getFoldKey(o) {
	if (o.pricer !== void 0) return void 0;
	const { path, required } = getPricesPath(o.env, o.pricesFile);
	let prices;
	try {
		prices = createHash("sha256").update(readFileSync(path)).digest("hex");
	} catch (e) {
		prices = `unreadable:${e.code ?? "?"}`;
	}
	return `s2 ${packageVersions()} ${o.costMode} ${required ? "required" : "optional"}:${path} ${prices}`;
}
var ListCache;
var init_summary_cache = __esmMin((() => {
	init_codec();
	init_paths();
	init_summaries();
	init_overrides();
	init_pricing();
	init_versions();
	init_discover();
	ListCache = class ListCache {
		#store;
		#agent;
		#parser;
		#foldKey;
		#codec;
		#rows;
		#keys = /* @__PURE__ */ new Map();
		#writes = /* @__PURE__ */ new Map();
		constructor(store, codec, foldKey, rows) {
			this.#store = store;
			this.#codec = codec;
			this.#agent = codec.id;
			this.#parser = getParserString(codec);
			this.#foldKey = foldKey;
			this.#rows = rows;
		}
		/** The cache for one list call, or undefined when it is off, has no fold key, or cannot be opened. */
		static open(o, codec) {
			if (!o.cache) return void 0;
			const foldKey = getFoldKey(o);
			if (foldKey === void 0) return void 0;
			let store;
			try {
				store = SummaryStore.open(o.cachePath ?? getCachePath(o.env), () => void 0);
			} catch {
				return;
			}
			const rows = guardSummaries(store, (s) => s.load(codec.id, getParserString(codec), foldKey));
			if (rows === void 0) {
				store.close();
				return;
			}
			return new ListCache(store, codec, foldKey, rows);
		}
		#key(sf) {
			let k = this.#keys.get(sf.file.path);
			if (k === void 0) {
				k = {
					parser: this.#parser,
					size: sf.size,
					mtimeMs: sf.mtimeMs,
					deps: fingerprintDependencies(this.#codec, sf.file.path),
					foldKey: this.#foldKey
				};
				this.#keys.set(sf.file.path, k);
			}
			return k;
		}
		#row(sf) {
			const row = this.#rows.get(sf.file.path);
			return row !== void 0 && isCurrentRow(row, this.#key(sf)) ? row : void 0;
		}
		/** The cached peek: data, null (a file with nothing of the codec's format), or undefined (not cached). */
		peek(sf) {
			const json = this.#row(sf)?.peek;
			return json === void 0 || json === null ? void 0 : parse(json);
		}
		level(level, files) {
			const out = /* @__PURE__ */ new Map();
			const ids = /* @__PURE__ */ new Map();
			const keys = /* @__PURE__ */ new Map();
			for (const sf of files) {
				const row = this.#row(sf);
				if (row === void 0) continue;
				ids.set(row.id, sf.file.path);
				keys.set(row.id, this.#key(sf));
			}
			if (ids.size === 0) return out;
			const got = guardSummaries(this.#store, (s) => s.level(level, keys));
			for (const [id, json] of got ?? []) {
				const path = ids.get(id);
				const data = json === null ? void 0 : parse(json);
				if (data !== void 0 && data !== null && path !== void 0) out.set(path, data);
			}
			return out;
		}
		put(sf, level, data) {
			let w = this.#writes.get(sf.file.path);
			if (w === void 0) this.#writes.set(sf.file.path, w = {
				agent: this.#agent,
				path: sf.file.path,
				key: this.#key(sf),
				levels: {}
			});
			w.levels[level] = JSON.stringify(data);
		}
		/**
		* Write what this run computed, drop the rows of files that are gone (cached, not among `discovered`, and
		* missing on disk), close. Never throws: a cache that cannot be written is simply not updated.
		*/
		finish(discovered, exists) {
			const prune = [];
			for (const path of this.#rows.keys()) if (!discovered.has(path) && !exists(path)) prune.push([this.#agent, path]);
			guardSummaries(this.#store, (s) => s.write([...this.#writes.values()], prune));
			this.#store.close();
		}
	};
}));
// dist/src/sessions/list.js
/**
* `list(agent, options)`: summaries of one agent's sessions, lazily.
*
* 1. Discover the codec's files and stat them (no parse). With `since` and a codec whose events precede the
*    file's mtime, files older than `since` are dropped here.
* 2. Peek each remaining file (peek.ts: head and tail windows through the codec's lineCore; small files
*    whole) for id, title, cwd, dates, model. Filter on since / until / cwd / tags.
* 3. Only when the request needs more, read more, and only for the candidates left:
*    - sort by cost or a model filter: usage only (`kinds: ['usage']`, the codecs' byte-marker path) gives
*      exact cost and every model used; when SCAN_MIN_FILES candidates or more need that read it comes from
*      the scan engine (its event cache when warm, worker pool when cold: usage-scan.ts);
*    - sort by turns: a full fold (exact counts);
*    - `full: true`: a full fold of the sessions returned; `exactBytes: n`: the same, in output order, for
*      as many returned sessions as fit in n bytes of files (the CLI's default budget).
* 4. Sort (date = updatedAt), direction, limit.
* A file that cannot be read, or yields no event of the codec's format (empty, foreign, all lines
* malformed), is left out: list never fails on one bad file; `get()` reports it.
*
* Every read of steps 2 and 3 is kept in the event cache database (summary-cache.ts: per file, the peek, the
* usage-only result and the whole fold, valid while the file's stat, parser, dependencies and price data are
* unchanged), so a warm `list` stats the files, loads the rows and reads only new or changed files. Cached
* or not, a summary is built from the same data by `fromData()`, so the results are the same. The pricer is
* loaded only when a file has to be read. Measured (docs/sessions.md): warm `list` over 3,142 files (1.3 GB)
* ~60 ms in process, cold ~1 s.
*/
function checkDate(name, v) {
	if (v === void 0) return void 0;
	if (!(v instanceof Date) || !Number.isFinite(v.getTime())) throw invalidOption(name, "a valid Date", v);
	return v.getTime();
}
function checkLimit(v, dflt) {
	if (v === void 0) return dflt;
	if (typeof v !== "number" || !Number.isInteger(v) || v < 1) throw invalidOption("limit", "a positive integer", v);
	return v;
}
function checkTags(v) {
	if (v === void 0) return void 0;
	if (!Array.isArray(v) || !v.every((t) => typeof t === "string")) throw invalidOption("tags", "an array of strings", v);
	return v.length === 0 ? void 0 : v;
}
function checkBytes(v) {
	if (v === void 0) return 0;
	if (typeof v !== "number" || Number.isNaN(v) || v < 0) throw invalidOption("exactBytes", "a number of bytes >= 0", v);
	return v;
}
function normalizeListOptions(o = {}) {
	const sort = o.sort ?? "date";
	if (![
		"date",
		"cost",
		"turns"
	].includes(sort)) throw invalidOption("sort", "date|cost|turns", o.sort);
	const direction = o.sortDirection ?? "desc";
	if (direction !== "asc" && direction !== "desc") throw invalidOption("sortDirection", "asc|desc", o.sortDirection);
	if (o.model !== void 0 && (typeof o.model !== "string" || o.model === "")) throw invalidOption("model", "a non-empty string", o.model);
	if (o.cwd !== void 0 && (typeof o.cwd !== "string" || o.cwd === "")) throw invalidOption("cwd", "a directory path", o.cwd);
	return {
		since: checkDate("since", o.since),
		until: checkDate("until", o.until),
		model: o.model?.toLowerCase(),
		tags: checkTags(o.tags),
		limit: checkLimit(o.limit, 100),
		sort,
		direction,
		cwd: o.cwd === void 0 ? void 0 : resolve(o.cwd),
		exactBytes: o.full === true ? Infinity : checkBytes(o.exactBytes),
		subagents: o.subagents === true
	};
}
/** The data of a summary from a fold (whole file when `exact`, else head + tail). */
function summaryData(sf, fold, exact, models, tail) {
	const last = Math.max(fold.lastMs ?? -Infinity, tail?.lastMs ?? -Infinity);
	const model = exact ? fold.model : tail?.model ?? fold.model;
	const d = {
		sessionId: sf.file.sessionId ?? fold.sessionId ?? fileSessionId(sf.file),
		title: tail?.title !== void 0 ? tail.title : fold.title,
		createdMs: fold.firstMs ?? sf.mtimeMs,
		updatedMs: Number.isFinite(last) ? last : sf.mtimeMs,
		turnCount: fold.turnCount,
		messageCount: fold.messageCount,
		exact,
		models: [...new Set(models)]
	};
	if (model !== void 0) d.model = model;
	if (exact && fold.cost !== void 0) d.cost = fold.cost;
	if (fold.cwd !== void 0) d.cwd = fold.cwd;
	if (fold.forkedFrom !== void 0) d.forkedFrom = fold.forkedFrom;
	if (fold.subagent === true || sf.file.subagent === true) d.subagent = true;
	return d;
}
/** The SessionSummary of stored or fresh data (the only place summaries of list are built). */
function fromData(sf, d, tags) {
	const agent = sf.codec.id;
	const s = {
		agent,
		sessionId: d.sessionId,
		unifiedId: resolveUnifiedId(agent, d.sessionId),
		title: d.title,
		createdAt: new Date(d.createdMs),
		updatedAt: new Date(d.updatedMs),
		turnCount: d.turnCount,
		messageCount: d.messageCount,
		tags: tags.tagsFor(agent, d.sessionId, d.cwd),
		exact: d.exact,
		file: sf.file.path,
		sizeBytes: sf.size
	};
	if (d.model !== void 0) s.model = d.model;
	if (d.cost !== void 0) s.cost = d.cost;
	if (d.cwd !== void 0) s.cwd = d.cwd;
	if (d.forkedFrom !== void 0) s.forkedFrom = d.forkedFrom;
	if (d.subagent === true) s.subagent = true;
	return s;
}
/** A lazy summary with a usage-only read merged in: exact cost, the most-used model (when the read saw one). */
function withUsage(s, u) {
	const out = { ...s };
	if (u.cost !== void 0) out.cost = u.cost;
	if (u.model !== void 0) out.model = u.model;
	return out;
}
/** A summary from a fold (whole file when `exact`, else head + tail). */
function toSummary(sf, fold, exact, tags, tail) {
	return fromData(sf, summaryData(sf, fold, exact, [], tail), tags);
}
/** True when the cwd is `dir` or below it. */
function cwdMatches(cwd, dir) {
	if (cwd === void 0) return false;
	const c = cwd.length > 1 && cwd.endsWith(sep) ? cwd.slice(0, -1) : cwd;
	return c === dir || c.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}
function modelMatches(models, needle) {
	for (const m of models) if (m.toLowerCase().includes(needle)) return true;
	return false;
}
/** Compare summaries for a sort; undefined costs always go last. */
function compareSummaries(sort, direction) {
	const sign = direction === "asc" ? 1 : -1;
	return (a, b) => {
		let d = 0;
		if (sort === "cost") {
			const ca = a.cost?.totalUsd;
			const cb = b.cost?.totalUsd;
			if (ca === void 0 || cb === void 0) d = ca === cb ? 0 : ca === void 0 ? 1 : -1;
			else d = sign * (ca - cb);
		} else if (sort === "turns") d = sign * (a.turnCount - b.turnCount) || sign * (a.messageCount - b.messageCount);
		if (d === 0) d = sign * (a.updatedAt.getTime() - b.updatedAt.getTime());
		if (d === 0) d = a.unifiedId < b.unifiedId ? -1 : a.unifiedId > b.unifiedId ? 1 : 0;
		return d;
	};
}
/** Stats of the files (synchronous: for thousands of small files a tight `statSync` loop beats as many promises). */
function statFiles(codec, files) {
	const out = [];
	for (const file of files) try {
		const s = statSync(file.path, { throwIfNoEntry: false });
		if (s !== void 0) out.push({
			codec,
			file,
			size: s.size,
			mtimeMs: s.mtimeMs
		});
	} catch {}
	return out;
}
function exists(path) {
	try {
		return statSync(path, { throwIfNoEntry: false }) !== void 0;
	} catch {
		return true;
	}
}
/** `list(agent, options)`: see the file header. */
async function listSessions(ctx, agent, options) {
	const codec = getCodec(agent);
	const o = normalizeListOptions(options);
	const all = [];
	for await (const f of codec.discover(ctx.rootsFor(codec))) all.push(f);
	let files = statFiles(codec, o.subagents ? all : all.filter((f) => f.subagent !== true));
	if (o.since !== void 0 && codec.capabilities.eventsPrecedeMtime === true) files = files.filter((f) => f.mtimeMs >= o.since);
	if (files.length === 0) return [];
	let price;
	const cache = ctx.options.cache ? (await Promise.resolve().then(() => (init_summary_cache(), summary_cache_exports))).ListCache.open(ctx.options, codec) : void 0;
	const run = {
		ctx,
		codec,
		tags: ctx.tags(),
		cache,
		price: () => price ??= ctx.price()
	};
	try {
		return await listFiles(run, files, o);
	} finally {
		run.cache?.finish(new Set(all.map((f) => f.path)), exists);
	}
}
async function listFiles(run, files, o) {
	const { ctx, tags, cache } = run;
	const peeked = new Array(files.length);
	const todo = [];
	files.forEach((sf, i) => {
		const data = cache?.peek(sf);
		if (data === void 0) todo.push(i);
		else if (data !== null) peeked[i] = {
			sf,
			summary: fromData(sf, data, tags),
			models: data.models
		};
	});
	await mapLimit(todo, ctx.options.concurrency, async (i) => {
		const sf = files[i];
		const price = await run.price();
		let data;
		try {
			const p = await peekFile(run.codec, sf.file, sf.size, price);
			if (p.fold.events === 0) data = null;
			else {
				const models = [...p.fold.models.keys()];
				if (p.tail?.model !== void 0) models.push(p.tail.model);
				if (p.fold.model !== void 0) models.push(p.fold.model);
				data = summaryData(sf, p.fold, p.exact, models, p.tail);
			}
		} catch {
			return;
		}
		cache?.put(sf, "peek", data);
		if (data !== null) peeked[i] = {
			sf,
			summary: fromData(sf, data, tags),
			models: data.models
		};
	});
	const byId = /* @__PURE__ */ new Map();
	for (const c of peeked) {
		if (c === void 0) continue;
		const s = c.summary;
		const t = s.createdAt.getTime();
		if (o.since !== void 0 && t < o.since) continue;
		if (o.until !== void 0 && t > o.until) continue;
		if (o.cwd !== void 0 && !cwdMatches(s.cwd, o.cwd)) continue;
		if (o.tags !== void 0 && !s.tags.some((x) => o.tags?.includes(x))) continue;
		const prev = byId.get(s.unifiedId);
		if (prev === void 0 || prev.summary.updatedAt < s.updatedAt) byId.set(s.unifiedId, c);
	}
	let candidates = [...byId.values()];
	if (o.sort === "turns") candidates = await refoldWhole(run, candidates);
	else if (o.sort === "cost" || o.model !== void 0) candidates = await mergeUsage(run, candidates, o.since);
	if (o.model !== void 0) candidates = candidates.filter((c) => modelMatches(c.models, o.model));
	let out = candidates.map((c) => c.summary).sort(compareSummaries(o.sort, o.direction)).slice(0, o.limit);
	if (o.exactBytes > 0 && out.some((s) => !s.exact)) {
		const byUnified = new Map(candidates.map((c) => [c.summary.unifiedId, c]));
		let left = o.exactBytes;
		const todoWhole = [];
		for (const s of out) {
			if (s.exact || s.sizeBytes > left) continue;
			left -= s.sizeBytes;
			todoWhole.push(byUnified.get(s.unifiedId));
		}
		const folded = new Map((await refoldWhole(run, todoWhole)).map((c) => [c.summary.unifiedId, c.summary]));
		out = out.map((s) => folded.get(s.unifiedId) ?? s).sort(compareSummaries(o.sort, o.direction));
	}
	return out;
}
function union(a, b) {
	return [.../* @__PURE__ */ new Set([...a, ...b])];
}
/**
* Exact cost and every model of the candidates that are not exact yet, merged into their lazy summaries:
* from the cache, else a usage-only read (`kinds: ['usage']`, the codecs' byte-marker path) — through the
* scan engine (usage-scan.ts: its event cache, its worker pool) when SCAN_MIN_FILES files or more need one.
* A file that cannot be read keeps its lazy summary.
*/
async function mergeUsage(run, cands, since) {
	const lazy = cands.filter((c) => !c.summary.exact);
	const usage = run.cache?.level("usage", lazy.map((c) => c.sf)) ?? /* @__PURE__ */ new Map();
	const missing = lazy.filter((c) => !usage.has(c.sf.file.path));
	if (missing.length >= 32) {
		const paths = new Set(missing.map((c) => c.sf.file.path));
		const scanned = await usageByFile(run.ctx, run.codec, paths, await run.price(), since === void 0 ? void 0 : new Date(since));
		for (const c of missing) {
			const u = scanned.get(c.sf.file.path);
			const data = u === void 0 ? { models: [] } : {
				cost: u.cost,
				...topModel(u.models) !== void 0 && { model: topModel(u.models) },
				models: [...u.models.keys()]
			};
			usage.set(c.sf.file.path, data);
			run.cache?.put(c.sf, "usage", data);
		}
	} else if (missing.length > 0) {
		const price = await run.price();
		await mapLimit(missing, run.ctx.options.concurrency, async (c) => {
			let data;
			try {
				const fold = await foldWholeFile(c.sf.codec, c.sf.file, price, ["usage"]);
				data = {
					...fold.cost !== void 0 && { cost: fold.cost },
					...fold.model !== void 0 && { model: fold.model },
					models: [...fold.models.keys()]
				};
			} catch {
				return;
			}
			usage.set(c.sf.file.path, data);
			run.cache?.put(c.sf, "usage", data);
		});
	}
	return cands.map((c) => {
		const u = c.summary.exact ? void 0 : usage.get(c.sf.file.path);
		return u === void 0 ? c : {
			sf: c.sf,
			summary: withUsage(c.summary, u),
			models: union(c.models, u.models)
		};
	});
}
/** The candidates that are not exact yet, folded whole (from the cache, else a full read). A file that fails keeps its lazy summary. */
async function refoldWhole(run, cands) {
	const cached = run.cache?.level("whole", cands.filter((c) => !c.summary.exact).map((c) => c.sf)) ?? /* @__PURE__ */ new Map();
	return mapLimit(cands, run.ctx.options.concurrency, async (c) => {
		if (c.summary.exact) return c;
		let data = cached.get(c.sf.file.path);
		if (data === void 0) {
			const price = await run.price();
			try {
				const fold = await foldWholeFile(c.sf.codec, c.sf.file, price);
				data = summaryData(c.sf, fold, true, union(c.models, fold.models.keys()));
			} catch {
				return c;
			}
			run.cache?.put(c.sf, "whole", data);
		}
		return {
			sf: c.sf,
			summary: fromData(c.sf, data, run.tags),
			models: data.models
		};
	});
}
var init_list = __esmMin((async () => {
	init_errors();
	await init_registry();
	await init_context();
	await init_fold();
	await init_ids();
	await init_peek();
	await init_usage_scan();
}));
// dist/src/sessions/resume.js
/**
* The agent's own command to resume a session (`codec.resumeCommand`), plus the directory to run it in:
* Claude Code only finds a session from the project directory it ran in, so the session's cwd (read from
* the head of its file, not a full parse) comes with the command.
*/
/** AGENT_NOT_FOUND, SESSION_NOT_FOUND, or USAGE_ERROR when the agent has no resume command. */
async function getResumeCommand(ctx, agent, id) {
	const codec = getCodec(agent);
	if (codec.resumeCommand === void 0) throw new SessionfoldError("USAGE_ERROR", `${codec.displayName} (${codec.id}) has no resume command`, { agent: codec.id });
	const file = await locateSession(ctx, codec, id);
	let cwd;
	try {
		const size = (await stat(file.path)).size;
		cwd = (await peekFile(codec, file, size, void 0)).fold.cwd;
	} catch {
		cwd = void 0;
	}
	return {
		agent: codec.id,
		sessionId: id,
		argv: codec.resumeCommand(id, file),
		...cwd !== void 0 && { cwd },
		file: file.path
	};
}
var init_resume = __esmMin((async () => {
	init_errors();
	await init_registry();
	await init_get();
	await init_peek();
}));
// dist/src/sessions/search-match.js
/**
* Matching and scoring for `search()`.
*
* Query: whitespace-separated terms, `"quoted phrases"` kept together; every term must occur in the session
* (its message texts or its title). Matching is case-insensitive with non-Unicode RegExp case folding, under
* which no non-ASCII character folds to an ASCII one, so the raw-byte pre-filter below agrees with it.
*
* Relevance, in [0, 1], computed from the normalized messages only, so it is comparable across agents:
*
*   score = 0.45 · (1 − e^(−hits/4))           hits: occurrences of all terms in texts and title
*         + 0.20 · min(1, 3 · blocksHit/blocks)  share of text blocks that mention a term (a third saturates)
*         + 0.25 · titleShare                    share of terms found in the title
*         + 0.10 · phrase                        1 when the terms occur together, in order, somewhere
*
* Pre-filter: before parsing, a line-format file's raw bytes are searched for the query's ASCII words
* (latin1 view, same case folding). JSON keeps such words as they are unless the writer escaped printable
* ASCII (`\u0041`) or `/` (`\/`); a file holding such escapes is always parsed. A file missing a word
* cannot match and is skipped unparsed. This assumes what a codec yields as text comes from the file's
* JSON strings (joined with whitespace when it joins parts), which holds for every JSONL agent format.
*/
/**
* Printable ASCII without JSON's structural characters: such a word cannot straddle a JSON string boundary
* or a value the codec re-serialized, so if a text holds it, the raw bytes do too (escapes aside).
*/
function isPrefilterWord(w) {
	return /^[\x21-\x7e]+$/.test(w) && !/["\\{}[\]:,]/.test(w);
}
/** Parse a query text into terms; INVALID_OPTION for an empty one. */
function parseTerms(text) {
	if (typeof text !== "string" || text.trim() === "") throw invalidOption("text", "a non-empty search text", text);
	const terms = [];
	const re = /"([^"]*)"|(\S+)/g;
	for (let m = re.exec(text); m !== null; m = re.exec(text)) {
		const t = (m[1] ?? m[2] ?? "").replace(/\s+/g, " ").trim().toLowerCase();
		if (t !== "" && !terms.includes(t)) terms.push(t);
	}
	if (terms.length === 0) throw invalidOption("text", "a non-empty search text", text);
	const regexes = terms.map((t) => new RegExp(t.split(" ").map(escapeRe).join("\\s+"), "gi"));
	const phrase = new RegExp(terms.map((t) => t.split(" ").map(escapeRe).join("\\s+")).join("[\\s\\S]{0,40}?"), "i");
	const words = /* @__PURE__ */ new Set();
	for (const t of terms) for (const w of t.split(" ")) if (isPrefilterWord(w)) words.add(w);
	return {
		terms,
		regexes,
		phrase,
		prefilterWords: [...words]
	};
}
/** The text around [index, index+length), whitespace collapsed, `…` where cut. */
function makeSnippet(text, index, length) {
	let from = Math.max(0, index - SNIPPET_BEFORE);
	let to = Math.min(text.length, index + length + SNIPPET_AFTER);
	if (from > 0 && /[\udc00-\udfff]/.test(text.charAt(from))) from--;
	if (to < text.length && /[\udc00-\udfff]/.test(text.charAt(to))) to++;
	const body = text.slice(from, to).replace(/\s+/g, " ").trim();
	return `${from > 0 ? "…" : ""}${body}${to < text.length ? "…" : ""}`;
}
/** `\u00XX` escaping a printable ASCII character (0x20-0x7f) somewhere in `b`. */
function hasEscapedAscii(b) {
	for (let i = b.indexOf(ESCAPE_PREFIX); i !== -1 && i + 5 < b.length; i = b.indexOf(ESCAPE_PREFIX, i + 1)) {
		const d = b[i + 4];
		if (d >= 50 && d <= 55) return true;
	}
	return false;
}
/**
* True when the file's raw bytes could hold a match (every pre-filter word occurs, or an escape makes the
* bytes inconclusive); false when some word is surely absent. See the file header. Chunks overlap by the
* longest word (and escape) length so nothing is missed at a chunk edge.
*/
async function mayContainAll(path, words) {
	if (words.length === 0) return true;
	const pending = new Map(words.map((w) => [w, new RegExp(escapeRe(w), "i")]));
	const slash = words.some((w) => w.includes("/"));
	const overlap = Math.max(...words.map((w) => w.length), 6) - 1;
	const fh = await open(path, "r");
	try {
		const buf = Buffer.allocUnsafe(PREFILTER_CHUNK + overlap);
		let carry = 0;
		let pos = 0;
		for (;;) {
			const { bytesRead } = await fh.read(buf, carry, PREFILTER_CHUNK, pos);
			if (bytesRead === 0) break;
			pos += bytesRead;
			const view = buf.subarray(0, carry + bytesRead);
			if (hasEscapedAscii(view) || slash && view.indexOf(ESCAPED_SLASH) !== -1) return true;
			const text = view.toString("latin1");
			for (const [w, re] of pending) if (re.test(text)) pending.delete(w);
			if (pending.size === 0) return true;
			carry = Math.min(overlap, view.length);
			view.copy(buf, 0, view.length - carry);
		}
		return false;
	} finally {
		await fh.close();
	}
}
var escapeRe, MAX_HITS_PER_TEXT, SearchScorer, SNIPPET_BEFORE, SNIPPET_AFTER, ESCAPE_PREFIX, ESCAPED_SLASH, PREFILTER_CHUNK;
var init_search_match = __esmMin((() => {
	init_errors();
	escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
	MAX_HITS_PER_TEXT = 1e3;
	SearchScorer = class {
		#t;
		#termHits;
		#blocks = 0;
		#blocksHit = 0;
		#phrase = false;
		#best;
		constructor(terms) {
			this.#t = terms;
			this.#termHits = terms.terms.map(() => 0);
		}
		/** One text block (a message event's text, a tool output). */
		text(text) {
			if (text === "") return;
			this.#blocks++;
			let distinct = 0;
			let hits = 0;
			let first = -1;
			let firstLen = 0;
			this.#t.regexes.forEach((re, i) => {
				re.lastIndex = 0;
				let n = 0;
				for (let m = re.exec(text); m !== null && n < MAX_HITS_PER_TEXT; m = re.exec(text)) {
					if (n === 0 && (first === -1 || m.index < first)) {
						first = m.index;
						firstLen = m[0].length;
					}
					n++;
					if (m[0].length === 0) re.lastIndex++;
				}
				if (n > 0) {
					distinct++;
					hits += n;
					this.#termHits[i] = (this.#termHits[i] ?? 0) + n;
				}
			});
			if (distinct === 0) return;
			this.#blocksHit++;
			if (!this.#phrase && (this.#t.terms.length === 1 || this.#t.phrase.test(text))) this.#phrase = true;
			const b = this.#best;
			if (b === void 0 || distinct > b.distinct || distinct === b.distinct && hits > b.hits) this.#best = {
				text,
				index: first,
				length: firstLen,
				distinct,
				hits
			};
		}
		/** Undefined when some term occurs nowhere; else the score and snippet. */
		result(title) {
			let titleTerms = 0;
			let hits = 0;
			for (let i = 0; i < this.#t.terms.length; i++) {
				const re = this.#t.regexes[i];
				re.lastIndex = 0;
				let inTitle = 0;
				for (let m = re.exec(title); m !== null; m = re.exec(title)) inTitle++;
				if (inTitle > 0) titleTerms++;
				const total = (this.#termHits[i] ?? 0) + inTitle;
				if (total === 0) return void 0;
				hits += total;
			}
			const density = this.#blocks === 0 ? 0 : Math.min(1, 3 * this.#blocksHit / this.#blocks);
			const titleShare = titleTerms / this.#t.terms.length;
			const phrase = this.#phrase || this.#t.phrase.test(title) ? 1 : 0;
			const raw = .45 * (1 - Math.exp(-hits / 4)) + .2 * density + .25 * titleShare + .1 * phrase;
			const score = Math.round(Math.min(1, Math.max(0, raw)) * 1e4) / 1e4;
			const b = this.#best;
			return {
				score,
				snippet: b === void 0 ? title : makeSnippet(b.text, b.index, b.length)
			};
		}
	};
	SNIPPET_BEFORE = 60;
	SNIPPET_AFTER = 100;
	ESCAPE_PREFIX = Buffer.from("\\u00");
	ESCAPED_SLASH = Buffer.from("\\/");
	PREFILTER_CHUNK = 1 << 20;
}));
// dist/src/sessions/search.js
function normalizeQuery(q) {
	if (q === null || typeof q !== "object") throw invalidOption("query", "an object with text", q);
	const sort = q.sort ?? "relevance";
	if (![
		"relevance",
		"date",
		"cost"
	].includes(sort)) throw invalidOption("sort", "relevance|date|cost", q.sort);
	if (q.model !== void 0 && (typeof q.model !== "string" || q.model === "")) throw invalidOption("model", "a non-empty string", q.model);
	return {
		terms: parseTerms(q.text),
		agent: q.agent,
		since: checkDate("since", q.since),
		until: checkDate("until", q.until),
		model: q.model?.toLowerCase(),
		tags: checkTags(q.tags),
		limit: checkLimit(q.limit, 50),
		sort,
		subagents: q.subagents === true
	};
}
/** `search(query)`: see the file header. Never throws AGENT_NOT_FOUND: an unknown agent gives `[]`. */
async function searchSessions(ctx, query) {
	const q = normalizeQuery(query);
	let codecs;
	if (q.agent !== void 0) {
		const c = findCodec(q.agent);
		if (c === void 0) return [];
		codecs = [c];
	} else {
		const all = listCodecs();
		const has = await Promise.all(all.map((c) => ctx.hasStorage(c)));
		codecs = all.filter((_, i) => has[i]);
	}
	const stats = {
		files: 0,
		prefiltered: 0,
		read: 0,
		skippedEarly: 0,
		stoppedEarly: false
	};
	const files = [];
	for (const c of codecs) for (const f of await ctx.discover(c, q.subagents)) {
		if (q.since !== void 0 && c.capabilities.eventsPrecedeMtime === true && f.mtimeMs < q.since) continue;
		files.push(f);
	}
	files.sort((a, b) => b.mtimeMs - a.mtimeMs);
	stats.files = files.length;
	if (files.length === 0) {
		query.onStats?.(stats);
		return [];
	}
	const price = await ctx.price();
	const tags = ctx.tags();
	const order = bySearchOrder(q.sort);
	const results = [];
	const seen = /* @__PURE__ */ new Set();
	/** With date sort and `limit` results held: the updatedAt a file must beat to rank. */
	const threshold = () => {
		if (q.sort !== "date" || results.length < q.limit) return void 0;
		return results[q.limit - 1].updatedAt.getTime();
	};
	let next = 0;
	const worker = async () => {
		while (next < files.length) {
			const sf = files[next++];
			const t = threshold();
			if (t !== void 0 && sf.codec.capabilities.eventsPrecedeMtime === true && sf.mtimeMs < t) {
				stats.skippedEarly++;
				stats.stoppedEarly = true;
				continue;
			}
			const r = await searchFile(sf, q, price, stats, tags);
			if (r === void 0 || seen.has(r.unifiedId)) continue;
			seen.add(r.unifiedId);
			results.push(r);
			results.sort(order);
		}
	};
	await Promise.all(Array.from({ length: Math.min(SEARCH_CONCURRENCY, files.length) }, worker));
	query.onStats?.(stats);
	return results.slice(0, q.limit);
}
async function searchFile(sf, q, price, stats, tags) {
	const persistence = sf.codec.capabilities.persistence;
	try {
		if ((persistence === "jsonl" || persistence === "json") && !await mayContainAll(sf.file.path, q.terms.prefilterWords)) {
			stats.prefiltered++;
			return;
		}
		stats.read++;
		const fold = new SessionFold({
			content: false,
			price
		});
		const scorer = new SearchScorer(q.terms);
		let toolMessageAt = -1;
		for await (const e of sf.codec.read(sf.file.path)) {
			fold.push(e);
			if (e.type === "message") {
				scorer.text(e.text);
				toolMessageAt = e.role === "tool" ? e.offset : -1;
			} else if (e.type === "tool_result" && e.offset !== toolMessageAt) scorer.text(outputText(e.output));
		}
		const r = fold.finish();
		const match = scorer.result(r.title);
		if (match === void 0) return void 0;
		const s = toSummary(sf, r, true, tags);
		const created = s.createdAt.getTime();
		if (q.since !== void 0 && created < q.since) return void 0;
		if (q.until !== void 0 && created > q.until) return void 0;
		if (q.model !== void 0 && !modelMatches([...r.models.keys(), ...r.model !== void 0 ? [r.model] : []], q.model)) return void 0;
		if (q.tags !== void 0 && !s.tags.some((x) => q.tags?.includes(x))) return void 0;
		s.relevanceScore = match.score;
		s.snippet = match.snippet;
		return s;
	} catch {
		return;
	}
}
var SEARCH_CONCURRENCY, bySearchOrder;
var init_search = __esmMin((async () => {
	init_errors();
	await init_registry();
	await init_fold();
	await init_list();
	init_search_match();
	SEARCH_CONCURRENCY = 4;
	bySearchOrder = (sort) => {
		if (sort !== "relevance") return compareSummaries(sort, "desc");
		const byDate = compareSummaries("date", "desc");
		return (a, b) => (b.relevanceScore ?? 0) - (a.relevanceScore ?? 0) || byDate(a, b);
	};
}));
// dist/src/sessions/manager.js
/** A caller's UsagePricer as the totals fold's Pricer. */
function foldPricer(p, mode) {
	const price = (u, m = mode) => p.price(u, m);
	return {
		mode,
		overridesPath: void 0,
		price(u, m = mode) {
			const r = price(u, m);
			return {
				usd: r.usd,
				source: r.source === "agent" ? "agent" : "calculated",
				unpriced: r.unpriced ?? r.usd === void 0
			};
		},
		priceUsd: (u, m = mode) => price(u, m).usd ?? NaN,
		calculate: (u) => price(u, "calculate").usd,
		resolve: () => void 0
	};
}
/** A SessionManager over the registry (see the file header). Options are checked here, once. */
function createSessionManager(options) {
	const ctx = new ManagerContext(normalizeManagerOptions(options));
	const o = ctx.options;
	return {
		list: (agent, opts) => listSessions(ctx, agent, opts),
		get: (agent, id) => getSession(ctx, agent, id),
		search: (query) => searchSessions(ctx, query),
		totalCost: (opts = {}) => totalCost({
			env: o.env,
			mode: o.costMode,
			cache: o.cache,
			...o.cachePath !== void 0 && { cachePath: o.cachePath },
			...Object.keys(o.roots).length > 0 && { roots: o.roots },
			...o.pricesFile !== void 0 && { pricesFile: o.pricesFile },
			...o.pricer !== void 0 && { pricer: foldPricer(o.pricer, opts.mode ?? o.costMode) },
			...opts
		}),
		async export(agent, id, format) {
			const f = checkExportFormat(format);
			return renderExport(await getSession(ctx, agent, id), f);
		},
		async diff(a, b) {
			const [sa, sb] = await Promise.all([getSession(ctx, a.agent, a.sessionId), getSession(ctx, b.agent, b.sessionId)]);
			return diffSessions(sa, sb);
		},
		resolveUnifiedId,
		resolveNativeId,
		resumeCommand: (agent, id) => getResumeCommand(ctx, agent, id)
	};
}
var init_manager = __esmMin((async () => {
	await init_total();
	await init_context();
	init_diff();
	await init_export$1();
	await init_get();
	await init_ids();
	await init_list();
	await init_resume();
	await init_search();
}));
// dist/src/cli/command.js
/**
* A small declarative command model (citty-like): each command is a lazily imported module under
* src/cli/commands/ that exports `default` as a CommandDef. Arguments are parsed with node:util parseArgs.
* A CliError is a user error: one clear line with its code, the usage, exit 1. Any other exception is a bug
* and prints its stack.
*/
function defineCommand(def) {
	return def;
}
function formatUsage(def, prefix) {
	const lines = [
		`Usage: ${prefix} ${def.usage}`.trimEnd(),
		"",
		def.description
	];
	if (def.subCommands) {
		lines.push("", "Commands:");
		for (const name of Object.keys(def.subCommands)) lines.push(`  ${name}`);
	}
	const opts = Object.entries(def.options);
	if (opts.length > 0) {
		lines.push("", "Options:");
		for (const [name, o] of opts) {
			const flag = `${o.short ? `-${o.short}, ` : ""}--${name}${o.type === "string" ? ` ${o.valueName ?? "<value>"}` : ""}`;
			lines.push(`  ${flag.padEnd(32)} ${o.description}`);
		}
	}
	return lines.join("\n") + "\n";
}
function parseCommandArgs(def, argv) {
	const options = { help: {
		type: "boolean",
		short: "h"
	} };
	for (const [name, o] of Object.entries(def.options)) options[name] = {
		type: o.type,
		...o.short && { short: o.short },
		...o.multiple && { multiple: true },
		...o.default !== void 0 && { default: o.default }
	};
	try {
		const r = parseArgs({
			args: argv,
			options,
			allowPositionals: true,
			strict: true,
			allowNegative: true
		});
		return {
			positionals: r.positionals,
			values: r.values
		};
	} catch (e) {
		throw new CliError("USAGE_ERROR", e.message);
	}
}
/** Map a thrown error to the CLI's output and exit code. */
function reportError(e, stderr, usage) {
	if (e instanceof CliError) {
		stderr.write(`error ${e.code}: ${e.message}\n`);
		if (usage) stderr.write(`\n${usage}`);
		return 1;
	}
	if (e instanceof SessionfoldError) {
		stderr.write(`error ${e.code}: ${e.message}\n`);
		return 1;
	}
	stderr.write(`${e?.stack ?? String(e)}\n`);
	return 2;
}
/** Read a string option. */
function str(ctx, name) {
	const v = ctx.values[name];
	return typeof v === "string" ? v : void 0;
}
/** Read a boolean option. */
function bool(ctx, name) {
	return ctx.values[name] === true;
}
/** Read a comma-separated (or repeated) list option. */
function list(ctx, name) {
	const v = ctx.values[name];
	if (v === void 0) return void 0;
	return (Array.isArray(v) ? v : [v]).flatMap((x) => String(x).split(",")).map((s) => s.trim()).filter(Boolean);
}
var CliError;
var init_command = __esmMin((() => {
	init_errors();
	CliError = class extends Error {
		name = "CliError";
		code;
		constructor(code, message) {
			super(message);
			this.code = code;
		}
	};
}));
// dist/src/cli/commands/cost-options.js
/**
* The selection options shared by `cost report` and `events export` (agents, dates, model, tags, cwd, time
* zone, cost mode, cache, prices), their parsing into CostAggregationOptions, and the stderr progress bar.
*/
/** The time zone of a run: --tz, else `$TZ` of the command's env when it names a zone, else the local one. */
function timeZoneOf(ctx) {
	const tz = str(ctx, "tz");
	if (tz !== void 0) return checkTimeZone(tz, "--tz");
	const envTz = ctx.env.TZ;
	if (envTz) try {
		return checkTimeZone(envTz.replace(/^:/, ""), "TZ");
	} catch {}
	return localTimeZone();
}
/** Parse the selection options of a command into aggregation options. */
function selectionFromArgs(ctx) {
	const timeZone = timeZoneOf(ctx);
	const cal = new ZoneCalendar(timeZone);
	const since = str(ctx, "since");
	const until = str(ctx, "until");
	const agents = list(ctx, "agent");
	const tags = list(ctx, "tag");
	const model = str(ctx, "model");
	const cwd = str(ctx, "cwd");
	const mode = str(ctx, "mode");
	const prices = str(ctx, "prices");
	const cachePath = typeof ctx.values.cache === "string" ? ctx.values.cache : void 0;
	const noCache = ctx.values.cache === false || bool(ctx, "no-cache");
	return {
		timeZone,
		env: ctx.env,
		...agents !== void 0 && agents.length > 0 && { agents },
		...since !== void 0 && { since: parseDateInZone(since, cal, false, "--since") },
		...until !== void 0 && { until: parseDateInZone(until, cal, true, "--until") },
		...model !== void 0 && { model },
		...tags !== void 0 && tags.length > 0 && { tags },
		...cwd !== void 0 && { cwd: resolve(cwd) },
		...mode !== void 0 && { mode: checkCostMode(mode, "--mode") },
		...prices !== void 0 && { pricesFile: prices },
		...cachePath !== void 0 && { cachePath },
		...noCache && { cache: false }
	};
}
/**
* A progress bar on stderr, only on a TTY and only once reading has taken more than `delayMs`; cleared at
* the end. Feed it the scan's `onProgress(done, total)`.
*/
function createProgressBar(stderr, delayMs = 400) {
	const tty = stderr.isTTY === true;
	const started = Date.now();
	let last = 0;
	let shown = false;
	return {
		onProgress(done, total) {
			if (!tty || total <= 0) return;
			const now = Date.now();
			if (now - started < delayMs || now - last < 100) return;
			last = now;
			shown = true;
			const cols = Math.max(20, Math.min((stderr.columns ?? 80) - 30, 50));
			const frac = Math.min(1, done / total);
			const fill = Math.round(frac * cols);
			const mb = (b) => (b / 1048576).toFixed(0);
			stderr.write(`\r[${"#".repeat(fill)}${".".repeat(cols - fill)}] ${(frac * 100).toFixed(0).padStart(3)}% ${mb(done)}/${mb(total)} MB`);
		},
		stop() {
			if (shown) stderr.write("\r\x1B[K");
			shown = false;
		}
	};
}
var SELECTION_OPTIONS;
var init_cost_options = __esmMin((() => {
	init_calendar();
	init_pricing();
	init_command();
	SELECTION_OPTIONS = {
		agent: {
			type: "string",
			short: "a",
			multiple: true,
			description: "Agents (ids or aliases), comma-separated or repeated (default: all)",
			valueName: "<a,b>"
		},
		since: {
			type: "string",
			description: "From this date (YYYY-MM-DD, in --tz) or ISO time",
			valueName: "<date>"
		},
		until: {
			type: "string",
			description: "Through this date (YYYY-MM-DD, inclusive, in --tz) or ISO time",
			valueName: "<date>"
		},
		model: {
			type: "string",
			description: "Only models whose id contains this (case-insensitive)",
			valueName: "<text>"
		},
		tag: {
			type: "string",
			multiple: true,
			description: "Only sessions with any of these tags (tags.json)",
			valueName: "<t,t>"
		},
		cwd: {
			type: "string",
			description: "Only sessions run in this directory or below it",
			valueName: "<dir>"
		},
		tz: {
			type: "string",
			description: "IANA time zone for dates and day buckets (default: local)",
			valueName: "<zone>"
		},
		mode: {
			type: "string",
			description: `Cost mode: ${COST_MODES$1.join("|")} (default auto: recorded cost, else computed)`,
			valueName: "<mode>"
		},
		prices: {
			type: "string",
			description: "Price-override file (default $SESSIONFOLD_PRICES or ~/.config/sessionfold/prices.json)",
			valueName: "<file>"
		},
		cache: {
			type: "string",
			description: "Event cache database (default $XDG_CACHE_HOME/sessionfold/events.db)",
			valueName: "<path>"
		},
		"no-cache": {
			type: "boolean",
			description: "Read every file, without the event cache"
		}
	};
}));
// dist/src/cli/commands/sessions-common.js
function makeManager(ctx) {
	return createSessionManager({ env: ctx.env });
}
/**
* A date option, parsed as `cost` parses it (`parseDateInZone`): `YYYY-MM-DD` / `YYYYMMDD` is midnight in the
* command's time zone (`--tz`, else `TZ`, else local; with `endOfDay`, the last millisecond of that day), or an
* ISO 8601 time. INVALID_OPTION otherwise.
*/
function parseDateOption(ctx, name, endOfDay) {
	const value = str(ctx, name);
	if (value === void 0) return void 0;
	return parseDateInZone(value, new ZoneCalendar(timeZoneOf(ctx)), endOfDay, `--${name}`);
}
function parseIntOption(ctx, name) {
	const v = str(ctx, name);
	if (v === void 0) return void 0;
	if (!/^\d+$/.test(v) || Number(v) < 1) throw new CliError("INVALID_OPTION", `Invalid option --${name}: expected a positive integer, got "${v}"`);
	return Number(v);
}
function parseChoice(ctx, name, choices) {
	const v = str(ctx, name);
	if (v === void 0) return void 0;
	if (!choices.includes(v)) throw new CliError("INVALID_OPTION", `Invalid option --${name}: expected ${choices.join("|")}, got "${v}"`);
	return v;
}
/**
* A session argument: `<agent> <id>` (two positionals from `from`) or one unified `<agent>:<id>`.
* Unknown agents give AGENT_NOT_FOUND.
*/
function sessionArgs(ctx, from = 0) {
	const [a, b] = ctx.positionals.slice(from);
	if (a !== void 0 && b !== void 0) {
		const codec = findCodec(a);
		if (codec === void 0) throw new SessionfoldError("AGENT_NOT_FOUND", `Unknown agent "${a}" (sessionfold agents lists them)`, { agent: a });
		return {
			agent: codec.id,
			id: b
		};
	}
	if (a !== void 0) return unifiedArg(a);
	throw new CliError("USAGE_ERROR", "expected <agent> <session-id> or <agent>:<session-id>");
}
/** `<agent>:<id>` → parts; USAGE_ERROR without a colon, AGENT_NOT_FOUND for an unknown agent. */
function unifiedArg(arg) {
	const r = resolveNativeId(arg);
	if (r !== null) return {
		agent: r.agent,
		id: r.nativeSessionId
	};
	const i = arg.indexOf(":");
	if (i <= 0 || i === arg.length - 1) throw new CliError("USAGE_ERROR", `expected <agent>:<session-id>, got "${arg}"`);
	throw new SessionfoldError("AGENT_NOT_FOUND", `Unknown agent "${arg.slice(0, i)}" in "${arg}" (sessionfold agents lists them)`, { agent: arg.slice(0, i) });
}
/** The stable `--json` shape of a summary: fixed key order, ISO dates, absent fields omitted. */
function summaryJson(s) {
	return {
		agent: s.agent,
		sessionId: s.sessionId,
		unifiedId: s.unifiedId,
		title: s.title,
		createdAt: s.createdAt.toISOString(),
		updatedAt: s.updatedAt.toISOString(),
		turnCount: s.turnCount,
		messageCount: s.messageCount,
		exact: s.exact,
		...s.model !== void 0 && { model: s.model },
		...s.cost !== void 0 && { cost: s.cost },
		tags: s.tags,
		...s.cwd !== void 0 && { cwd: s.cwd },
		...s.forkedFrom !== void 0 && { forkedFrom: s.forkedFrom },
		...s.subagent === true && { subagent: true },
		...s.relevanceScore !== void 0 && { relevanceScore: s.relevanceScore },
		...s.snippet !== void 0 && { snippet: s.snippet },
		file: s.file,
		sizeBytes: s.sizeBytes
	};
}
/** `YYYY-MM-DD HH:MM` in the local time zone (TZ). */
function formatLocal(d) {
	return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}
function terminalWidth(ctx) {
	const env = Number(ctx.env.COLUMNS);
	if (Number.isInteger(env) && env > 20) return env;
	const cols = ctx.stdout.columns;
	return typeof cols === "number" && cols > 20 ? cols : 120;
}
/** Cut to `max` code points with `…`. */
function ellipsize(text, max) {
	const flat = text.replace(/\s+/g, " ").trim();
	const cps = Array.from(flat);
	if (cps.length <= max) return flat;
	return max <= 1 ? "…" : `${cps.slice(0, max - 1).join("")}…`;
}
/** Left-aligned columns; the last column takes what width remains. */
function renderTable(header, rows, width, rightAligned = /* @__PURE__ */ new Set()) {
	const n = header.length;
	const widths = header.map((h, i) => i === n - 1 ? 0 : Math.max(Array.from(h).length, ...rows.map((r) => Array.from(r[i] ?? "").length)));
	const used = widths.slice(0, -1).reduce((a, b) => a + b + 2, 0);
	const last = Math.max(10, width - used);
	const line = (r) => r.map((c, i) => {
		if (i === n - 1) return ellipsize(c, last);
		const w = widths[i];
		const padding = " ".repeat(Math.max(0, w - Array.from(c).length));
		return rightAligned.has(i) ? padding + c : c + padding;
	}).join("  ").trimEnd();
	return [line(header), ...rows.map(line)].join("\n") + "\n";
}
/** The table row cells of a summary (count cells marked `+` when they are lower bounds). */
function summaryCells(s) {
	const mark = s.exact ? "" : "+";
	return {
		updated: formatLocal(s.updatedAt),
		turns: `${s.turnCount}${mark}`,
		messages: `${s.messageCount}${mark}`,
		cost: formatUsd(s.cost),
		model: s.model ?? "-"
	};
}
/** ANSI colors when `--color`, or when not `--no-color`, NO_COLOR is unset and stdout is a TTY. */
function palette(ctx) {
	const flag = ctx.values.color;
	const on = flag === true || flag !== false && !ctx.env.NO_COLOR && ctx.stdout.isTTY === true;
	const wrap = (code) => (s) => on ? `\x1b[${code}m${s}\x1b[0m` : s;
	return {
		red: wrap("31"),
		green: wrap("32"),
		yellow: wrap("33"),
		dim: wrap("2"),
		bold: wrap("1")
	};
}
/** Quote one argv word for a POSIX shell when it needs it. */
function shellQuote(word) {
	return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
var pad2;
var init_sessions_common = __esmMin((async () => {
	init_calendar();
	init_cost_options();
	await init_ids();
	await init_manager();
	await init_cost$1();
	init_errors();
	await init_registry();
	init_command();
	pad2 = (n) => String(n).padStart(2, "0");
}));
// dist/src/cli/commands/start.js
/**
* `sessionfold start` (what `npm start` runs): the main job in one screen. It looks for the user's real agent
* folders (every registered codec's default roots); when none holds a session it says so and uses the
* bundled demo history (`fixtures/demo`, Claude Code + Codex in their real layouts). Then it prints the most
* recent sessions and the cost report (by day for a short history, by month for a long one).
*/
var start_exports = /* @__PURE__ */ __exportAll({
	default: () => start_default,
	demoRoot: () => demoRoot,
	demoRoots: () => demoRoots
});
/** The demo history shipped in the package: `<package>/fixtures/demo`. */
function demoRoot() {
	const here = fileURLToPath(new URL(".", import.meta.url));
	for (const up of ["../../../..", "../../.."]) {
		const candidate = join(here, up, "fixtures", "demo");
		if (existsSync(join(candidate, "manifest.json"))) return candidate;
	}
	throw new Error("the bundled demo history (fixtures/demo) is missing from this install");
}
/** The demo history's roots, as each codec would derive them from its own env variable. */
function demoRoots() {
	const root = demoRoot();
	const env = {
		HOME: root,
		CLAUDE_CONFIG_DIR: join(root, "claude"),
		CODEX_HOME: join(root, "codex")
	};
	const out = {};
	for (const id of ["claude", "codex"]) {
		const codec = listCodecs().find((c) => c.id === id);
		if (codec) out[id] = codec.defaultRoots(env);
	}
	return out;
}
/** Agents whose default roots hold at least one session file. */
async function detectAgents(env) {
	const found = [];
	for (const codec of listCodecs()) {
		if (codec.id === "sessionfold-jsonl") continue;
		const roots = codec.defaultRoots(env);
		for await (const _ of codec.discover(roots)) {
			found.push({
				id: codec.id,
				roots: roots.filter((r) => existsSync(r))
			});
			break;
		}
	}
	return found;
}
function tilde(p, env) {
	const home = env.HOME || homedir();
	return home && p.startsWith(home + "/") ? `~${p.slice(home.length)}` : p;
}
var start_default;
var init_start = __esmMin((async () => {
	await init_registry();
	init_pricing();
	await init_total();
	init_format();
	await init_manager();
	init_command();
	await init_sessions_common();
	init_cost_options();
	start_default = defineCommand({
		name: "start",
		description: "The main job: recent sessions and the cost report over your agent folders (or the bundled demo history when there are none).",
		usage: "[--demo] [--no-cache]",
		options: {
			demo: {
				type: "boolean",
				description: "Use the bundled demo history even when agent folders exist"
			},
			"no-cache": {
				type: "boolean",
				description: "Read every file, without the event cache"
			}
		},
		async run(ctx) {
			const env = ctx.env;
			const out = ctx.stdout;
			const detected = bool(ctx, "demo") ? [] : await detectAgents(env);
			let roots;
			let agents;
			if (detected.length > 0) {
				agents = detected.map((d) => d.id);
				out.write(`sessionfold: reading your agent history: ${detected.map((d) => `${d.id} (${d.roots.map((r) => tilde(r, env)).join(", ")})`).join(", ")}\n\n`);
			} else {
				roots = demoRoots();
				agents = Object.keys(roots);
				const looked = listCodecs().filter((c) => c.id !== "sessionfold-jsonl").flatMap((c) => c.defaultRoots(env).map((r) => tilde(r, env)));
				out.write(bool(ctx, "demo") ? "sessionfold: showing the bundled demo history (fixtures/demo), as asked.\n\n" : `sessionfold: no agent history found (looked in ${looked.join(", ")}),\nso this is the bundled demo history (fixtures/demo). Point CLAUDE_CONFIG_DIR / CODEX_HOME at real folders to read yours.\n\n`);
			}
			const cache = !bool(ctx, "no-cache");
			const width = terminalWidth(ctx);
			const manager = createSessionManager({
				env,
				...roots && { roots },
				cache
			});
			const recent = [];
			for (const agent of agents) {
				const rows = await manager.list(agent, {
					limit: 5,
					exactBytes: 16777216
				});
				recent.push(...rows);
			}
			recent.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
			out.write("Recent sessions\n");
			const rows = recent.slice(0, 8).map((s) => {
				const c = summaryCells(s);
				return [
					c.updated,
					s.agent,
					c.turns,
					c.cost,
					c.model,
					ellipsize(s.title || "(untitled)", 80)
				];
			});
			out.write(renderTable([
				"updated",
				"agent",
				"turns",
				"cost",
				"model",
				"title"
			], rows, width, /* @__PURE__ */ new Set([2, 3])));
			const timeZone = timeZoneOf(ctx);
			const pricer = createPricer({ env });
			const base = {
				env,
				agents,
				timeZone,
				pricer,
				cache,
				...roots && { roots }
			};
			let groupBy = "day";
			let summary = await totalCost({
				...base,
				groupBy
			});
			if (Object.keys(summary.breakdowns ?? {}).length > 31) {
				groupBy = "month";
				summary = await totalCost({
					...base,
					groupBy
				});
			}
			out.write("\n");
			out.write(renderCostSummary(summary, "table", {
				groupBy,
				timeZone,
				mode: pricer.mode
			}));
			out.write(`\nMore: sessionfold sessions list <agent> · sessionfold cost report --group-by model · sessionfold --help\n`);
			return 0;
		}
	});
}));
// dist/cursors/store.js
/**
* A durable store of cursors keyed by file (vector's file checkpointer): one versioned JSON document
* `{version: 1, cursors: {<file>: ReadCursor}}`, saved atomically (write `<path>.tmp`, fsync, rename over
* `<path>`), loaded temp-first so a crash between write and rename loses nothing. A save with nothing
* changed is skipped.
*/
/** Write `data` to `path` atomically: temp file, fsync, rename. */
async function writeFileAtomic(path, data) {
	await mkdir(dirname(path), { recursive: true });
	const tmp = `${path}.tmp`;
	const fh = await open(tmp, "w");
	try {
		await fh.writeFile(data, "utf8");
		await fh.sync();
	} finally {
		await fh.close();
	}
	await rename(tmp, path);
}
var init_store = __esmMin((() => {}));
// dist/cursors/stream.js
/**
* A LineCore over a text stream (stdin): split2 splits it, each line goes to the core. No cursor: a stream
* cannot be re-read. Offsets are byte offsets in the stream.
*/
async function* readStreamEvents(core, input, options = {}) {
	const opts = normalizeReadOptions(options);
	const state = core.init({
		file: "-",
		options: opts
	});
	const out = [];
	const emit = (e) => {
		if (opts.kinds.has(e.type)) {
			opts.info.events++;
			out.push(e);
		}
	};
	let offset = 0;
	let lastByte = -1;
	input.on("data", (chunk) => {
		const b = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
		if (b.length > 0) lastByte = b[b.length - 1];
	});
	const lines = input.pipe(split2("\n", {
		maxLength: opts.maxLineBytes,
		skipOverflow: true
	}));
	let pendingLine;
	for await (const text of lines) {
		if (pendingLine !== void 0) yield* handle(pendingLine);
		pendingLine = text;
	}
	if (pendingLine !== void 0 && lastByte === 10) yield* handle(pendingLine);
	core.end(state, emit);
	for (const e of out) yield e;
	out.length = 0;
	function* handle(text) {
		const bytes = Buffer.from(text, "utf8");
		const start = offset;
		offset += bytes.length + 1;
		opts.info.lines++;
		const line = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.subarray(0, bytes.length - 1) : bytes;
		if (line.length > 0) try {
			core.line(state, line, start, emit);
		} catch (e) {
			if (e instanceof SessionfoldError && (e.code === "MALFORMED_LINE" || e.code === "PARSE_ERROR")) {
				if (opts.strict) throw new SessionfoldError("PARSE_ERROR", e.message, {
					agent: e.agent,
					file: "-",
					byteOffset: e.byteOffset,
					cause: e
				});
				opts.info.skippedLines++;
				opts.onSkip?.(e);
			} else throw e;
		}
		for (const e of out) yield e;
		out.length = 0;
	}
}
var init_stream = __esmMin((() => {
	init_codec();
	init_errors();
}));
// dist/src/cli/output.js
var LineWriter;
var init_output = __esmMin((() => {
	LineWriter = class {
		#parts = [];
		#size = 0;
		#out;
		constructor(out) {
			this.#out = out;
		}
		async line(text) {
			this.#parts.push(text, "\n");
			this.#size += text.length + 1;
			if (this.#size >= 65536) await this.flush();
		}
		async flush() {
			if (this.#parts.length === 0) return;
			const chunk = this.#parts.join("");
			this.#parts = [];
			this.#size = 0;
			if (!this.#out.write(chunk)) await new Promise((resolve) => this.#out.once("drain", () => resolve()));
		}
	};
}));
// dist/src/cli/commands/read.js
/**
* `sessionfold read <file> --agent <id> [--cursor <cursor.json>] [--kinds …]`: stream a session file's
* events as NDJSON. With --cursor the read resumes from the cursor in that file (a missing file means from
* byte 0), prints `{"type":"start","restarted":…,"replaced":{…}}` first on stderr, and writes the new cursor
* atomically when the read completes. `read -` parses standard input (no cursor).
*/
var read_exports = /* @__PURE__ */ __exportAll({ default: () => read_default });
async function loadCursor(path, stderr) {
	let text;
	try {
		text = await readFile(path, "utf8");
	} catch (e) {
		if (e.code === "ENOENT") return void 0;
		throw new CliError("IO_ERROR", `cannot read cursor ${path}: ${e.message}`);
	}
	try {
		return JSON.parse(text);
	} catch {
		stderr.write(`warning CURSOR_INVALID: ${path} is not valid JSON; reading from byte 0\n`);
		return;
	}
}
var read_default;
var init_read = __esmMin((async () => {
	init_codec();
	init_events$1();
	await init_registry();
	init_store();
	init_stream();
	init_command();
	init_output();
	read_default = defineCommand({
		name: "read",
		description: "Stream the events of one session file as NDJSON on stdout. `-` reads standard input.",
		usage: "<file|-> --agent <id> [--cursor <cursor.json>] [--kinds usage,message,tool_call,tool_result,session]",
		options: {
			agent: {
				type: "string",
				short: "a",
				description: "Codec id or alias (claude, codex, …)",
				valueName: "<id>"
			},
			cursor: {
				type: "string",
				description: "Resume from / save the cursor in this file",
				valueName: "<cursor.json>"
			},
			kinds: {
				type: "string",
				description: `Event kinds to yield (default all): ${EVENT_KINDS.join(",")}`,
				valueName: "<k,k>"
			},
			strict: {
				type: "boolean",
				description: "Fail on the first malformed line instead of skipping it"
			}
		},
		async run(ctx) {
			const file = ctx.positionals[0];
			if (file === void 0) throw new CliError("USAGE_ERROR", "read needs a file (or - for stdin)");
			const agent = str(ctx, "agent");
			if (agent === void 0) throw new CliError("USAGE_ERROR", "read needs --agent <id>");
			const codec = getCodec(agent);
			let kinds;
			const k = list(ctx, "kinds");
			if (k !== void 0) {
				if (k.length === 0) throw new CliError("INVALID_OPTION", `Invalid option --kinds: expected one or more of ${EVENT_KINDS.join(",")}, got an empty list`);
				for (const x of k) if (!isEventKind(x)) throw new CliError("INVALID_OPTION", `Invalid option --kinds: expected ${EVENT_KINDS.join("|")}, got "${x}"`);
				kinds = k;
			}
			const out = new LineWriter(ctx.stdout);
			const info = newReadInfo();
			let skipped = 0;
			const base = {
				kinds,
				info,
				strict: ctx.values.strict === true,
				onSkip: () => void skipped++
			};
			if (file === "-") {
				if (str(ctx, "cursor") !== void 0) throw new CliError("USAGE_ERROR", "--cursor cannot be used with standard input");
				if (!codec.lineCore) throw new CliError("USAGE_ERROR", `${codec.id} is not a line format; it cannot be read from standard input`);
				for await (const e of readStreamEvents(codec.lineCore, process.stdin, base)) await out.line(JSON.stringify(e));
				await out.flush();
				return 0;
			}
			const cursorPath = str(ctx, "cursor");
			if (cursorPath === void 0) {
				for await (const e of codec.read(file, base)) await out.line(JSON.stringify(e));
				await out.flush();
				if (skipped > 0) ctx.stderr.write(`warning MALFORMED_LINE: skipped ${skipped} line(s) of ${file}\n`);
				return 0;
			}
			if (!codec.capabilities.incremental) throw new CliError("USAGE_ERROR", `${codec.id} does not support resumable reads (--cursor)`);
			const from = await loadCursor(cursorPath, ctx.stderr);
			let next;
			let partial = false;
			const events = codec.read(file, {
				...base,
				resume: {
					from,
					onStart: (s) => ctx.stderr.write(`${JSON.stringify({
						type: "start",
						restarted: s.restarted,
						...s.reason && { reason: s.reason },
						replaced: s.replaced
					})}\n`),
					onCursor: (u) => {
						next = u.cursor;
						partial = u.partialLine;
					}
				}
			});
			for await (const e of events) await out.line(JSON.stringify(e));
			await out.flush();
			if (next !== void 0) await writeFileAtomic(cursorPath, JSON.stringify(next) + "\n");
			ctx.stderr.write(`${JSON.stringify({
				type: "end",
				offset: info.bytesCommitted,
				partialLine: partial,
				lines: info.lines,
				events: info.events,
				skippedLines: info.skippedLines
			})}\n`);
			return 0;
		}
	});
}));
// dist/src/cli/commands/agents.js
var agents_exports = /* @__PURE__ */ __exportAll({ default: () => agents_default });
var agents_default;
var init_agents = __esmMin((async () => {
	await init_registry();
	init_command();
	agents_default = defineCommand({
		name: "agents",
		description: "List the registered agents (codecs), their capabilities and default roots.",
		usage: "[--json]",
		options: { json: {
			type: "boolean",
			description: "Print JSON"
		} },
		async run(ctx) {
			const rows = listCodecs().map((c) => ({
				id: c.id,
				aliases: [...c.aliases],
				name: c.displayName,
				persistence: c.capabilities.persistence,
				incremental: c.capabilities.incremental,
				roots: c.defaultRoots(ctx.env)
			}));
			if (bool(ctx, "json")) ctx.stdout.write(JSON.stringify(rows, null, 2) + "\n");
			else for (const r of rows) ctx.stdout.write(`${r.id.padEnd(18)} ${r.persistence.padEnd(9)} ${r.incremental ? "resumable" : "         "}  ${r.roots.join(", ")}\n`);
			return 0;
		}
	});
}));
// dist/src/cli/commands/cost-report.js
var cost_report_exports = /* @__PURE__ */ __exportAll({ default: () => cost_report_default });
var cost_report_default;
var init_cost_report = __esmMin((async () => {
	await init_filter();
	init_format();
	init_pricing();
	await init_total();
	init_command();
	init_cost_options();
	cost_report_default = defineCommand({
		name: "report",
		description: "Total cost and tokens of the selected usage, grouped (default: by day)",
		usage: "[--agent a,b] [--since <date>] [--until <date>] [--group-by <dim>] [--format table|json|csv|markdown] [options]",
		options: {
			...SELECTION_OPTIONS,
			"group-by": {
				type: "string",
				short: "g",
				description: `Group rows by ${COST_GROUP_BYS.join("|")}|none (default day)`,
				valueName: "<dim>"
			},
			format: {
				type: "string",
				short: "f",
				description: `Output: ${COST_FORMATS.join("|")} (default table)`,
				valueName: "<fmt>"
			},
			json: {
				type: "boolean",
				description: "Same as --format json: print the CostSummary object only"
			}
		},
		async run(ctx) {
			if (ctx.positionals.length > 0) throw new CliError("USAGE_ERROR", `unexpected argument "${ctx.positionals[0]}"`);
			const g = str(ctx, "group-by") ?? "day";
			if (g !== "none" && !COST_GROUP_BYS.includes(g)) throw new CliError("INVALID_OPTION", `Invalid option --group-by: expected ${COST_GROUP_BYS.join("|")}|none, got "${g}"`);
			const groupBy = g === "none" ? void 0 : g;
			const f = bool(ctx, "json") ? "json" : str(ctx, "format") ?? "table";
			if (!COST_FORMATS.includes(f)) throw new CliError("INVALID_OPTION", `Invalid option --format: expected ${COST_FORMATS.join("|")}, got "${f}"`);
			const format = f;
			const selection = selectionFromArgs(ctx);
			const pricer = createPricer({
				env: ctx.env,
				...selection.mode !== void 0 && { mode: selection.mode },
				...selection.pricesFile !== void 0 && { pricesFile: selection.pricesFile }
			});
			const progress = createProgressBar(ctx.stderr);
			let summary;
			try {
				summary = await totalCost({
					...selection,
					pricer,
					...groupBy !== void 0 && { groupBy }
				}, {
					onProgress: progress.onProgress,
					onWarning: (m) => {
						progress.stop();
						ctx.stderr.write(`warning: ${m}\n`);
					}
				});
			} finally {
				progress.stop();
			}
			ctx.stdout.write(renderCostSummary(summary, format, {
				groupBy,
				timeZone: selection.timeZone,
				mode: pricer.mode
			}));
			return 0;
		}
	});
}));
// dist/src/cli/commands/cost.js
var cost_exports = /* @__PURE__ */ __exportAll({ default: () => cost_default });
var cost_default;
var init_cost = __esmMin((() => {
	init_command();
	cost_default = defineCommand({
		name: "cost",
		description: "What your agents cost: totals and breakdowns by day, week, month, agent, model, session, project or tag",
		usage: "<command>",
		options: {},
		subCommands: { report: () => init_cost_report().then(() => cost_report_exports) }
	});
}));
// dist/src/cost/export.js
/**
* Bulk export of usage events (`sessionfold events export`): every selected usage event once, as one flat
* line with its computed cost, in constant memory. The line shape is `schema/usage-event.schema.json`.
*
* Dedup is streaming: a dedup key is exported once, and again (a correction) whenever a later copy has more
* output tokens, so that keeping the last line per dedupKey gives the copy the totals fold counts (which can
* wait for the end and keeps the largest). Copies across files are normally the same response re-recorded,
* so corrections are rare. The seen-set is a KeyTable of 64-bit hashes with each exported copy's size.
*
* Incremental export (`--after <cursor-file>`): the cursor file keeps the hashes of every key ever exported
* (the authority: a resumed session that copies old responses into a NEW file does not re-export them, and
* a file Claude Code rewrote in place is safe too) plus a per-file watermark (highest line offset exported
* and event count) that records where each file's export stands. It is written atomically (temp, fsync,
* rename) only after the export's output was flushed. Per key it also keeps the output tokens of the exported
* copy: a response exported while the agent was still writing it is exported again, once, when a later run
* sees a larger copy (a correction; consumers keep the last line per dedupKey).
*/
/** The CSV header line of the export. */
function exportCsvHeader() {
	return EXPORT_CSV_COLUMNS.join(",");
}
/** One export line as a CSV row (RFC 4180 quoting; absent fields empty). */
function exportCsvRow(l) {
	return EXPORT_CSV_COLUMNS.map((c) => csvField(l[c])).join(",");
}
/**
* The selected, deduplicated, priced usage events of `records` (records or record batches, e.g.
* `scanUsageBatches()`), as export lines, one array per input batch (empty arrays skipped).
*/
async function* exportUsageBatches(records, options = {}) {
	const n = normalizeCostOptions(options);
	const st = {
		n,
		sel: createRecordSelector(n),
		seen: new KeyTable(),
		totals: new KeyTable(),
		cursor: options.cursor
	};
	for await (const batch of records) {
		const lines = toExportLines(Array.isArray(batch) ? batch : [batch], st);
		if (lines.length > 0) yield lines;
	}
}
/** The export lines of a batch of records (selected, not seen before, priced); marks them seen. */
function toExportLines(records, { n, sel, seen, totals, cursor }) {
	const out = [];
	for (const r of records) {
		if (!sel.accepts(r, sel.needsTime ? eventTime(r.timestamp) : NaN)) continue;
		hashInto(r.dedupKey);
		const hi = HASH[0];
		const lo = HASH[1];
		const size = exportedSize(r);
		const total = exportedTotal(r);
		const inRun = seen.getHash(hi, lo);
		if (inRun >= 0 && !(size > inRun || size === inRun && total > totals.getHash(hi, lo))) continue;
		seen.setHash(hi, lo, size);
		totals.setHash(hi, lo, total);
		if (cursor !== void 0) {
			const prev = cursor.seen.getHash(hi, lo);
			if (inRun < 0 && prev >= 0 && (prev === 0 || !(size > prev))) continue;
			cursor.seen.setHash(hi, lo, size);
		}
		const p = n.pricer.price(r, n.mode);
		const line = {
			type: "usage",
			agent: r.agent,
			sessionId: r.sessionId,
			file: r.file,
			offset: r.offset,
			...r.cwd !== void 0 && { cwd: r.cwd },
			timestamp: r.timestamp,
			model: r.model,
			...r.modelFallback === true && { modelFallback: true },
			...r.provider !== void 0 && { provider: r.provider },
			inputTokens: r.inputTokens,
			outputTokens: r.outputTokens,
			reasoningTokens: r.reasoningTokens,
			cacheReadTokens: r.cacheReadTokens,
			cacheWriteTokens: r.cacheWriteTokens,
			cacheWrite1hTokens: r.cacheWrite1hTokens,
			singleRequest: r.singleRequest,
			dedupKey: r.dedupKey,
			...r.messageId !== void 0 && { messageId: r.messageId },
			...typeof r.costUsd === "number" && { costUsd: r.costUsd },
			...r.speed !== void 0 && { speed: r.speed },
			...typeof r.webSearchRequests === "number" && { webSearchRequests: r.webSearchRequests },
			...r.retained === true && { retained: true },
			usd: p.usd === void 0 ? null : Math.round(p.usd * 0xe8d4a51000) / 0xe8d4a51000,
			costSource: p.source,
			unpriced: p.unpriced
		};
		cursor?.mark(line);
		out.push(line);
	}
	return out;
}
var EXPORT_CSV_COLUMNS, EXPORT_CURSOR_TYPE, ExportCursor, exportedSize, exportedTotal;
var init_export = __esmMin((async () => {
	init_errors();
	init_store();
	await init_filter();
	init_format();
	await init_key_table();
	EXPORT_CSV_COLUMNS = [
		"agent",
		"sessionId",
		"file",
		"offset",
		"cwd",
		"timestamp",
		"model",
		"provider",
		"inputTokens",
		"outputTokens",
		"reasoningTokens",
		"cacheReadTokens",
		"cacheWriteTokens",
		"cacheWrite1hTokens",
		"singleRequest",
		"dedupKey",
		"messageId",
		"costUsd",
		"speed",
		"webSearchRequests",
		"usd",
		"costSource",
		"unpriced"
	];
	EXPORT_CURSOR_TYPE = "sessionfold.export-cursor";
	ExportCursor = class ExportCursor {
		path;
		seen;
		files;
		exported;
		constructor(path, seen, files, exported) {
			this.path = path;
			this.seen = seen;
			this.files = files;
			this.exported = exported;
		}
		/** Load a cursor file; a missing one starts empty; an unreadable or foreign one is CURSOR_INVALID. */
		static async load(path) {
			let text;
			try {
				text = await readFile(path, "utf8");
			} catch (e) {
				if (e.code === "ENOENT") return new ExportCursor(path, new KeyTable(), /* @__PURE__ */ new Map(), 0);
				throw new SessionfoldError("IO_ERROR", `Cannot read export cursor ${path}: ${e.message}`, {
					file: path,
					cause: e
				});
			}
			let doc;
			try {
				doc = JSON.parse(text);
			} catch {
				throw new SessionfoldError("CURSOR_INVALID", `Export cursor ${path} is not valid JSON; delete it to export everything again`, { file: path });
			}
			if (doc === null || typeof doc !== "object" || doc.type !== "sessionfold.export-cursor" || doc.version !== 1 || typeof doc.keys?.data !== "string") throw new SessionfoldError("CURSOR_INVALID", `${path} is not a sessionfold export cursor (version 1)`, { file: path });
			const seen = KeyTable.fromBytes(Buffer.from(doc.keys.data, "base64"), typeof doc.keys.values === "string" ? Buffer.from(doc.keys.values, "base64") : void 0);
			const files = new Map(Object.entries(doc.files ?? {}));
			return new ExportCursor(path, seen, files, typeof doc.exported === "number" ? doc.exported : seen.size);
		}
		/** Record an exported line. */
		mark(l) {
			this.exported++;
			const m = this.files.get(l.file);
			if (m) {
				m.events++;
				if (l.offset > m.offset) m.offset = l.offset;
			} else this.files.set(l.file, {
				agent: l.agent,
				offset: l.offset,
				events: 1
			});
		}
		/** Write the cursor atomically. */
		async save(now = /* @__PURE__ */ new Date()) {
			const files = {};
			for (const k of [...this.files.keys()].sort()) files[k] = this.files.get(k);
			const doc = {
				version: 1,
				type: EXPORT_CURSOR_TYPE,
				updatedAt: now.toISOString(),
				exported: this.exported,
				files,
				keys: {
					hash: "xxh64",
					count: this.seen.size,
					data: this.seen.toBytes().toString("base64"),
					values: this.seen.valuesToBytes().toString("base64")
				}
			};
			await writeFileAtomic(this.path, JSON.stringify(doc) + "\n");
		}
	};
	exportedSize = (r) => Math.min(r.outputTokens, 2147483646) + 1;
	exportedTotal = (r) => Math.min(r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens, 2147483646);
}));
// dist/src/cli/commands/events-export.js
var events_export_exports = /* @__PURE__ */ __exportAll({ default: () => events_export_default });
var FORMATS, events_export_default;
var init_events_export = __esmMin((async () => {
	await init_export();
	init_pricing();
	await init_total();
	init_command();
	init_output();
	init_cost_options();
	FORMATS = ["ndjson", "csv"];
	events_export_default = defineCommand({
		name: "export",
		description: "Stream every selected usage event once, with its cost (schema/usage-event.schema.json)",
		usage: "[--format ndjson|csv] [--after <export-cursor.json>] [--agent a,b] [--since <date>] [options]",
		options: {
			...SELECTION_OPTIONS,
			format: {
				type: "string",
				short: "f",
				description: "ndjson (default) or csv",
				valueName: "<fmt>"
			},
			after: {
				type: "string",
				description: "Export only events not exported with this cursor file before; update it",
				valueName: "<file>"
			}
		},
		async run(ctx) {
			if (ctx.positionals.length > 0) throw new CliError("USAGE_ERROR", `unexpected argument "${ctx.positionals[0]}"`);
			const format = str(ctx, "format") ?? "ndjson";
			if (!FORMATS.includes(format)) throw new CliError("INVALID_OPTION", `Invalid option --format: expected ${FORMATS.join("|")}, got "${format}"`);
			const selection = selectionFromArgs(ctx);
			const pricer = createPricer({
				env: ctx.env,
				...selection.mode !== void 0 && { mode: selection.mode },
				...selection.pricesFile !== void 0 && { pricesFile: selection.pricesFile }
			});
			const afterPath = str(ctx, "after");
			const cursor = afterPath !== void 0 ? await ExportCursor.load(afterPath) : void 0;
			const progress = createProgressBar(ctx.stderr);
			const records = scanFor(selection, {
				onProgress: progress.onProgress,
				onWarning: (m) => {
					progress.stop();
					ctx.stderr.write(`warning: ${m}\n`);
				}
			});
			const out = new LineWriter(ctx.stdout);
			if (format === "csv") await out.line(exportCsvHeader());
			let count = 0;
			try {
				for await (const lines of exportUsageBatches(records, {
					...selection,
					pricer,
					...cursor !== void 0 && { cursor }
				})) {
					for (const line of lines) await out.line(format === "csv" ? exportCsvRow(line) : JSON.stringify(line));
					count += lines.length;
				}
				await out.flush();
			} finally {
				progress.stop();
			}
			if (cursor) {
				await cursor.save();
				ctx.stderr.write(`exported ${count} new event${count === 1 ? "" : "s"}; cursor ${cursor.path} (${cursor.exported} in all)\n`);
			}
			return 0;
		}
	});
}));
// dist/src/cli/commands/events.js
var events_exports = /* @__PURE__ */ __exportAll({ default: () => events_default });
var events_default;
var init_events = __esmMin((() => {
	init_command();
	events_default = defineCommand({
		name: "events",
		description: "Bulk access to the normalized usage events of every agent",
		usage: "<command>",
		options: {},
		subCommands: { export: () => init_events_export().then(() => events_export_exports) }
	});
}));
// dist/src/cli/commands/sessions-list.js
var sessions_list_exports = /* @__PURE__ */ __exportAll({
	EXACT_BUDGET_MB: () => 64,
	default: () => sessions_list_default
}), sessions_list_default;
var init_sessions_list = __esmMin((async () => {
	await init_registry();
	init_command();
	await init_list();
	await init_sessions_common();
	sessions_list_default = defineCommand({
		name: "list",
		description: "List sessions of an agent (all agents with storage when omitted), newest first.",
		usage: "[agent] [--since <date>] [--until <date>] [--model <m>] [--tag <t>] [--cwd <dir>] [--limit <n>] [--sort date|cost|turns] [--direction asc|desc] [--full|--lazy] [--subagents] [--json]",
		options: {
			since: {
				type: "string",
				description: "Created on or after (YYYY-MM-DD or ISO 8601)",
				valueName: "<date>"
			},
			until: {
				type: "string",
				description: "Created on or before (a date includes its whole day)",
				valueName: "<date>"
			},
			model: {
				type: "string",
				description: "Used a model whose id contains this",
				valueName: "<model>"
			},
			tag: {
				type: "string",
				multiple: true,
				description: "Has this tag (repeatable or comma-separated; any matches)",
				valueName: "<tag>"
			},
			cwd: {
				type: "string",
				description: "Started in this directory or below it",
				valueName: "<dir>"
			},
			limit: {
				type: "string",
				description: "At most this many (default 100)",
				valueName: "<n>"
			},
			sort: {
				type: "string",
				description: "date (default) | cost | turns",
				valueName: "<key>"
			},
			direction: {
				type: "string",
				description: "desc (default) | asc",
				valueName: "<dir>"
			},
			full: {
				type: "boolean",
				description: "Read every listed session whole: exact counts and cost"
			},
			lazy: {
				type: "boolean",
				description: `Only heads and tails (default: listed sessions up to 64 MB in all are read whole)`
			},
			subagents: {
				type: "boolean",
				description: "Include subagent transcripts"
			},
			json: {
				type: "boolean",
				description: "Print a JSON array (schema: docs/sessions.md)"
			}
		},
		async run(ctx) {
			if (ctx.positionals.length > 1) throw new CliError("USAGE_ERROR", `unexpected argument "${ctx.positionals[1]}"`);
			const agent = ctx.positionals[0];
			const sort = parseChoice(ctx, "sort", [
				"date",
				"cost",
				"turns"
			]);
			const direction = parseChoice(ctx, "direction", ["asc", "desc"]);
			const since = parseDateOption(ctx, "since", false);
			const until = parseDateOption(ctx, "until", true);
			const limit = parseIntOption(ctx, "limit");
			const model = str(ctx, "model");
			const tags = list(ctx, "tag");
			const cwd = str(ctx, "cwd");
			const options = {
				...since && { since },
				...until && { until },
				...model !== void 0 && { model },
				...tags !== void 0 && tags.length > 0 && { tags },
				...cwd !== void 0 && { cwd },
				...limit !== void 0 && { limit },
				...sort !== void 0 && { sort },
				...direction !== void 0 && { sortDirection: direction },
				full: bool(ctx, "full"),
				exactBytes: bool(ctx, "lazy") ? 0 : 67108864,
				subagents: bool(ctx, "subagents")
			};
			const manager = makeManager(ctx);
			let rows;
			if (agent !== void 0) rows = await manager.list(agent, options);
			else rows = (await Promise.all(listCodecs().map((c) => manager.list(c.id, options)))).flat().sort(compareSummaries(sort ?? "date", direction ?? "desc")).slice(0, limit ?? 100);
			if (bool(ctx, "json")) {
				ctx.stdout.write(`${JSON.stringify(rows.map(summaryJson), null, 2)}\n`);
				return 0;
			}
			if (rows.length === 0) {
				ctx.stdout.write(`No sessions${agent !== void 0 ? ` for ${agent}` : ""}.\n`);
				return 0;
			}
			const withAgent = agent === void 0;
			const header = [
				"UPDATED",
				...withAgent ? ["AGENT"] : [],
				"SESSION",
				"MODEL",
				"TURNS",
				"MSGS",
				"COST",
				"TITLE"
			];
			const body = rows.map((s) => {
				const c = summaryCells(s);
				return [
					c.updated,
					...withAgent ? [s.agent] : [],
					s.sessionId,
					c.model,
					c.turns,
					c.messages,
					c.cost,
					s.title === "" ? "(untitled)" : s.title
				];
			});
			const right = new Set(withAgent ? [
				4,
				5,
				6
			] : [
				3,
				4,
				5
			]);
			ctx.stdout.write(renderTable(header, body, terminalWidth(ctx), right));
			if (rows.some((s) => !s.exact)) ctx.stdout.write("+ counts from the head and tail of the file only (lower bounds); --full reads every listed session whole\n");
			return 0;
		}
	});
}));
// dist/src/cli/commands/sessions-export.js
var sessions_export_exports = /* @__PURE__ */ __exportAll({
	default: () => sessions_export_default,
	getSessionFor: () => getSessionFor
});
/** The session, from the command's environment. */
async function getSessionFor(ctx, agent, id) {
	return createSessionManager({ env: ctx.env }).get(agent, id);
}
var sessions_export_default;
var init_sessions_export = __esmMin((async () => {
	await init_manager();
	await init_export$1();
	init_command();
	await init_sessions_common();
	sessions_export_default = defineCommand({
		name: "export",
		description: "Write one whole session to stdout as jsonl (default, re-importable), json or markdown.",
		usage: "<agent> <session-id> | <agent>:<session-id> [--format jsonl|json|markdown]",
		options: { format: {
			type: "string",
			short: "f",
			description: "jsonl (default) | json | markdown",
			valueName: "<format>"
		} },
		async run(ctx) {
			const { agent, id } = sessionArgs(ctx);
			const format = parseChoice(ctx, "format", [
				"jsonl",
				"json",
				"markdown"
			]) ?? "jsonl";
			ctx.stdout.write(renderExport(await getSessionFor(ctx, agent, id), format));
			return 0;
		}
	});
}));
// dist/src/cli/commands/sessions-show.js
/**
* `sessionfold sessions show <agent> <id>` (or `<agent>:<id>`): one session for reading. Markdown by default,
* with long tool inputs, outputs and thinking cut to SHOW_BLOCK_LINES lines (`--full` keeps all); on a
* terminal the output goes through `$PAGER` (default `less -FRX`, which exits at once when it fits).
* `--format json|jsonl` prints the export formats unchanged.
*/
var sessions_show_exports = /* @__PURE__ */ __exportAll({
	SHOW_BLOCK_LINES: () => 40,
	default: () => sessions_show_default
});
/** Write through the pager when stdout is a terminal; fall back to a plain write when it cannot start. */
async function page(ctx, text) {
	if (!(ctx.stdout.isTTY === true) || ctx.values.pager === false) {
		ctx.stdout.write(text);
		return;
	}
	const pager = ctx.env.PAGER || "less -FRX";
	if (!await new Promise((resolve) => {
		const child = spawn(pager, {
			shell: true,
			stdio: [
				"pipe",
				"inherit",
				"inherit"
			],
			env: {
				LESS: "FRX",
				...ctx.env
			}
		});
		child.on("error", () => resolve(false));
		child.on("close", () => resolve(true));
		child.stdin.on("error", () => void 0);
		child.stdin.end(text);
	})) ctx.stdout.write(text);
}
var sessions_show_default;
var init_sessions_show = __esmMin((async () => {
	await init_export$1();
	await init_sessions_export();
	init_command();
	await init_sessions_common();
	sessions_show_default = defineCommand({
		name: "show",
		description: "Show one session: Markdown (default, paged on a terminal), or --format json|jsonl.",
		usage: "<agent> <session-id> | <agent>:<session-id> [--format markdown|json|jsonl] [--full]",
		options: {
			format: {
				type: "string",
				short: "f",
				description: "markdown (default) | json | jsonl",
				valueName: "<format>"
			},
			full: {
				type: "boolean",
				description: `Do not cut tool blocks and thinking at 40 lines`
			},
			pager: {
				type: "boolean",
				description: "Page on a terminal (default; --no-pager writes straight out)"
			}
		},
		async run(ctx) {
			const { agent, id } = sessionArgs(ctx);
			const format = parseChoice(ctx, "format", [
				"markdown",
				"json",
				"jsonl"
			]) ?? "markdown";
			const text = renderExport(await getSessionFor(ctx, agent, id), format, bool(ctx, "full") ? {} : { maxBlockLines: 40 });
			if (format === "markdown") await page(ctx, text);
			else ctx.stdout.write(text);
			return 0;
		}
	});
}));
// dist/src/cli/commands/sessions-search.js
var sessions_search_exports = /* @__PURE__ */ __exportAll({ default: () => sessions_search_default });
var sessions_search_default;
var init_sessions_search = __esmMin((async () => {
	init_command();
	await init_sessions_common();
	sessions_search_default = defineCommand({
		name: "search",
		description: "Search message text and titles across agents (all terms must match, case-insensitive).",
		usage: "<text…> [--agent <a>] [--since <date>] [--until <date>] [--model <m>] [--tag <t>] [--limit <n>] [--sort relevance|date|cost] [--json]",
		options: {
			agent: {
				type: "string",
				short: "a",
				description: "Only this agent (default: every agent with storage)",
				valueName: "<agent>"
			},
			since: {
				type: "string",
				description: "Created on or after (YYYY-MM-DD or ISO 8601)",
				valueName: "<date>"
			},
			until: {
				type: "string",
				description: "Created on or before (a date includes its whole day)",
				valueName: "<date>"
			},
			model: {
				type: "string",
				description: "Used a model whose id contains this",
				valueName: "<model>"
			},
			tag: {
				type: "string",
				multiple: true,
				description: "Has this tag (repeatable or comma-separated; any matches)",
				valueName: "<tag>"
			},
			limit: {
				type: "string",
				description: "At most this many (default 50)",
				valueName: "<n>"
			},
			sort: {
				type: "string",
				description: "relevance (default) | date | cost",
				valueName: "<key>"
			},
			subagents: {
				type: "boolean",
				description: "Include subagent transcripts"
			},
			json: {
				type: "boolean",
				description: "Print a JSON array (schema: docs/sessions.md)"
			}
		},
		async run(ctx) {
			const text = ctx.positionals.join(" ");
			if (text.trim() === "") throw new CliError("USAGE_ERROR", "search needs a text");
			const since = parseDateOption(ctx, "since", false);
			const until = parseDateOption(ctx, "until", true);
			const limit = parseIntOption(ctx, "limit");
			const sort = parseChoice(ctx, "sort", [
				"relevance",
				"date",
				"cost"
			]);
			const tags = list(ctx, "tag");
			const agent = str(ctx, "agent");
			const model = str(ctx, "model");
			const query = {
				text,
				...agent !== void 0 && { agent },
				...since && { since },
				...until && { until },
				...model !== void 0 && { model },
				...tags !== void 0 && tags.length > 0 && { tags },
				...limit !== void 0 && { limit },
				...sort !== void 0 && { sort },
				subagents: bool(ctx, "subagents")
			};
			const rows = await makeManager(ctx).search(query);
			if (bool(ctx, "json")) {
				ctx.stdout.write(`${JSON.stringify(rows.map(summaryJson), null, 2)}\n`);
				return 0;
			}
			if (rows.length === 0) {
				ctx.stdout.write(`No sessions match "${text}".\n`);
				return 0;
			}
			const width = terminalWidth(ctx);
			const table = renderTable([
				"SCORE",
				"UPDATED",
				"SESSION",
				"COST",
				"TITLE"
			], rows.map((s) => [
				(s.relevanceScore ?? 0).toFixed(2),
				summaryCells(s).updated,
				s.unifiedId,
				summaryCells(s).cost,
				s.title === "" ? "(untitled)" : s.title
			]), width, /* @__PURE__ */ new Set([0, 3])).split("\n");
			ctx.stdout.write(`${table[0]}\n`);
			rows.forEach((s, i) => {
				ctx.stdout.write(`${table[i + 1]}\n`);
				if (s.snippet !== void 0 && s.snippet !== "") ctx.stdout.write(`      ${ellipsize(s.snippet, width - 6)}\n`);
			});
			return 0;
		}
	});
}));
// dist/src/cli/commands/sessions-diff.js
var sessions_diff_exports = /* @__PURE__ */ __exportAll({
	default: () => sessions_diff_default,
	renderDiff: () => renderDiff
});
function preview(m) {
	if (m === void 0) return "";
	if (m.content.trim() !== "") return m.content;
	if (m.toolCalls !== void 0 && m.toolCalls.length > 0) return `[tool call ${m.toolCalls.map((c) => c.toolName).join(", ")}]`;
	if (m.toolResult !== void 0) return `[result of ${m.toolResult.toolName || m.toolResult.toolCallId}]`;
	if (m.thinking !== void 0) return "[thinking]";
	return "";
}
/** The human rendering of a SessionDiff. */
function renderDiff(d, width, context, p) {
	const out = [];
	const wa = String(Math.max(0, ...d.operations.map((o) => o.indexA ?? 0))).length;
	const wb = String(Math.max(0, ...d.operations.map((o) => o.indexB ?? 0))).length;
	const idx = (o) => `[${o.indexA === void 0 ? " ".repeat(wa) : String(o.indexA).padStart(wa)} ${o.indexB === void 0 ? " ".repeat(wb) : String(o.indexB).padStart(wb)}]`;
	const prefixLen = 2 + wa + wb + 3 + 1 + 10;
	const text = (s) => ellipsize(s, Math.max(10, width - prefixLen));
	const role = (m) => (m?.role ?? "").padEnd(9);
	out.push(p.bold(`--- ${d.a.unifiedId}`), p.bold(`+++ ${d.b.unifiedId}`));
	const ops = d.operations;
	const near = ops.map(() => false);
	ops.forEach((o, i) => {
		if (o.type === "unchanged") return;
		for (let k = Math.max(0, i - context); k <= Math.min(ops.length - 1, i + context); k++) near[k] = true;
	});
	let folded = 0;
	const flush = () => {
		if (folded > 0) out.push(p.dim(`  … ${folded} unchanged message${folded === 1 ? "" : "s"} …`));
		folded = 0;
	};
	ops.forEach((o, i) => {
		if (o.type === "unchanged" && !near[i]) {
			folded++;
			return;
		}
		flush();
		if (o.type === "unchanged") out.push(p.dim(`  ${idx(o)} ${role(o.messageA)} ${text(preview(o.messageA))}`));
		else if (o.type === "removal") out.push(p.red(`- ${idx(o)} ${role(o.messageA)} ${text(preview(o.messageA))}`));
		else if (o.type === "addition") out.push(p.green(`+ ${idx(o)} ${role(o.messageB)} ${text(preview(o.messageB))}`));
		else {
			out.push(p.yellow(`~ ${idx(o)} ${role(o.messageA)} ${text(preview(o.messageA))}`));
			out.push(p.yellow(`  ${" ".repeat(idx(o).length)} ${" ".repeat(8)}→ ${text(preview(o.messageB))}`));
		}
	});
	flush();
	const s = d.stats;
	out.push(`${s.unchanged} unchanged, ${s.modifications} modified, ${s.additions} added, ${s.removals} removed`);
	return out.join("\n") + "\n";
}
var DEFAULT_CONTEXT, sessions_diff_default;
var init_sessions_diff = __esmMin((async () => {
	init_command();
	await init_sessions_common();
	DEFAULT_CONTEXT = 3;
	sessions_diff_default = defineCommand({
		name: "diff",
		description: "Compare two sessions message by message (longest common subsequence on role and text).",
		usage: "<agent>:<id> <agent>:<id> [--json] [--context <n>] [--color|--no-color]",
		options: {
			json: {
				type: "boolean",
				description: "Print the SessionDiff as JSON"
			},
			context: {
				type: "string",
				description: `Unchanged messages shown around each change (default ${DEFAULT_CONTEXT}; 0 hides them)`,
				valueName: "<n>"
			},
			color: {
				type: "boolean",
				description: "Force colors (default: on a terminal unless NO_COLOR)"
			}
		},
		async run(ctx) {
			if (ctx.positionals.length !== 2) throw new CliError("USAGE_ERROR", "diff needs two sessions: <agent>:<id> <agent>:<id>");
			const a = unifiedArg(ctx.positionals[0]);
			const b = unifiedArg(ctx.positionals[1]);
			const context = ctx.values.context === "0" ? 0 : parseIntOption(ctx, "context") ?? DEFAULT_CONTEXT;
			const d = await makeManager(ctx).diff({
				agent: a.agent,
				sessionId: a.id
			}, {
				agent: b.agent,
				sessionId: b.id
			});
			if (bool(ctx, "json")) ctx.stdout.write(`${JSON.stringify(d, null, 2)}\n`);
			else ctx.stdout.write(renderDiff(d, terminalWidth(ctx), context, palette(ctx)));
			return 0;
		}
	});
}));
// dist/src/cli/commands/sessions-resume.js
/**
* `sessionfold sessions resume <agent> <id>`: print the agent's own command to resume a session (e.g.
* `cd '/work/app' && claude --resume <id>`); `--exec` runs it in the session's directory with inherited
* stdio and exits with its status. sessionfold itself never writes the session.
*/
var sessions_resume_exports = /* @__PURE__ */ __exportAll({ default: () => sessions_resume_default });
var sessions_resume_default;
var init_sessions_resume = __esmMin((async () => {
	init_command();
	init_errors();
	await init_sessions_common();
	sessions_resume_default = defineCommand({
		name: "resume",
		description: "Print the agent's own command to resume a session; --exec runs it.",
		usage: "<agent> <session-id> | <agent>:<session-id> [--exec]",
		options: { exec: {
			type: "boolean",
			description: "Run the command (in the session directory, inherited stdio)"
		} },
		async run(ctx) {
			const { agent, id } = sessionArgs(ctx);
			const r = await makeManager(ctx).resumeCommand(agent, id);
			const command = r.argv.map(shellQuote).join(" ");
			if (!bool(ctx, "exec")) {
				ctx.stdout.write(`${r.cwd !== void 0 ? `cd ${shellQuote(r.cwd)} && ` : ""}${command}\n`);
				return 0;
			}
			const [cmd, ...args] = r.argv;
			if (cmd === void 0) throw new SessionfoldError("USAGE_ERROR", `${agent} gave an empty resume command`);
			return new Promise((resolve, reject) => {
				const child = spawn(cmd, args, {
					stdio: "inherit",
					env: ctx.env,
					...r.cwd !== void 0 && { cwd: r.cwd }
				});
				child.on("error", (e) => reject(new SessionfoldError("IO_ERROR", `cannot run "${command}"${r.cwd !== void 0 ? ` in ${r.cwd}` : ""}: ${e.code ?? e.message}`, { cause: e })));
				child.on("close", (code, signal) => resolve(code ?? (signal !== null ? 128 : 1)));
			});
		}
	});
}));
// dist/src/cli/commands/sessions.js
var sessions_exports = /* @__PURE__ */ __exportAll({ default: () => sessions_default });
var sessions_default;
var init_sessions = __esmMin((() => {
	init_command();
	sessions_default = defineCommand({
		name: "sessions",
		description: "List, show, search, export, diff and resume agent sessions (read-only).",
		usage: "<list|show|search|export|diff|resume> [options]",
		options: {},
		subCommands: {
			list: () => init_sessions_list().then(() => sessions_list_exports),
			show: () => init_sessions_show().then(() => sessions_show_exports),
			search: () => init_sessions_search().then(() => sessions_search_exports),
			export: () => init_sessions_export().then(() => sessions_export_exports),
			diff: () => init_sessions_diff().then(() => sessions_diff_exports),
			resume: () => init_sessions_resume().then(() => sessions_resume_exports)
		}
	});
}));
// dist/src/cli/commands/bench.js
/**
* `sessionfold bench [--agent a,b] [--roots <path|agent=path>,…] [--json]`: how fast sessionfold reads *your*
* history. Per agent: files, bytes, and for a full read (every event kind) and a usage-only read (the
* byte-marker path) the time, MB/s and events/s, cold and warm:
*
* - full read: cold = first pass through the codec; warm = second pass (the OS page cache is warm; there is
*   no event cache for full reads);
* - usage-only read: cold = through the codec with the event cache bypassed; warm = `scanUsage` through an
*   event cache built for this run in a temporary folder (what a second `cost report` does). The user's own
*   cache is never touched.
*
* With no agent data under the default roots it measures the bundled demo history (fixtures/demo) and says so.
*/
var bench_exports = /* @__PURE__ */ __exportAll({
	benchAgents: () => benchAgents,
	default: () => bench_default,
	demoEnv: () => demoEnv,
	formatBenchTable: () => formatBenchTable
});
/** The package folder (holding fixtures/demo), from dist/src/cli/commands or src/cli/commands. */
function packageRoot() {
	let dir = dirname(fileURLToPath(import.meta.url));
	for (let i = 0; i < 6; i++) {
		if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "fixtures", "demo"))) return dir;
		dir = dirname(dir);
	}
	throw new CliError("IO_ERROR", "cannot find the bundled demo history (fixtures/demo)");
}
/** The environment under which the codecs' default roots are the demo history. */
function demoEnv() {
	const demo = join(packageRoot(), "fixtures", "demo");
	return {
		HOME: join(demo, ".no-home"),
		CLAUDE_CONFIG_DIR: join(demo, "claude"),
		CODEX_HOME: join(demo, "codex"),
		TZ: "UTC"
	};
}
async function discover(codec, roots) {
	const paths = [];
	let bytes = 0;
	for await (const f of codec.discover(roots)) try {
		bytes += statSync(f.path).size;
		paths.push(f.path);
	} catch {}
	return {
		paths,
		bytes
	};
}
async function codecPass(codec, paths, kinds) {
	const keys = /* @__PURE__ */ new Set();
	let events = 0;
	const t0 = performance.now();
	for (const p of paths) try {
		for await (const e of codec.read(p, { kinds })) {
			events++;
			if (e.type === "usage") keys.add(e.dedupKey);
		}
	} catch {}
	return {
		seconds: (performance.now() - t0) / 1e3,
		events,
		usageEvents: keys.size
	};
}
async function cachePass(agent, roots, cachePath, env) {
	const keys = /* @__PURE__ */ new Set();
	let events = 0;
	const t0 = performance.now();
	for await (const batch of scanUsageBatches({
		agents: [agent],
		roots: { [agent]: roots },
		cache: true,
		cachePath,
		env,
		stats: newScanStats(),
		onWarning: () => void 0
	})) for (const r of batch) {
		events++;
		keys.add(r.dedupKey);
	}
	return {
		seconds: (performance.now() - t0) / 1e3,
		events,
		usageEvents: keys.size
	};
}
function toRead(mode, phase, via, bytes, r) {
	const s = Math.max(r.seconds, 1e-6);
	return {
		mode,
		phase,
		via,
		seconds: r.seconds,
		events: r.events,
		usageEvents: r.usageEvents,
		mbPerSec: bytes / 1e6 / s,
		eventsPerSec: r.events / s
	};
}
/** Measure every agent; the library face of `sessionfold bench`. */
async function benchAgents(agents, env) {
	const out = [];
	const cacheDir = mkdtempSync(join(tmpdir(), "sessionfold-bench-"));
	try {
		for (const { codec, roots } of agents) {
			const { paths, bytes } = await discover(codec, roots);
			if (paths.length === 0) continue;
			const reads = [];
			reads.push(toRead("full", "cold", "codec", bytes, await codecPass(codec, paths, void 0)));
			reads.push(toRead("full", "warm", "codec", bytes, await codecPass(codec, paths, void 0)));
			reads.push(toRead("usage", "cold", "codec", bytes, await codecPass(codec, paths, ["usage"])));
			const cachePath = join(cacheDir, `${codec.id}.db`);
			await cachePass(codec.id, roots, cachePath, env);
			reads.push(toRead("usage", "warm", "event-cache", bytes, await cachePass(codec.id, roots, cachePath, env)));
			out.push({
				agent: codec.id,
				roots,
				files: paths.length,
				bytes,
				reads
			});
		}
	} finally {
		rmSync(cacheDir, {
			recursive: true,
			force: true
		});
	}
	return out;
}
function fmt(n, digits = 1) {
	if (n >= 1e6) return `${(n / 1e6).toFixed(digits)}M`;
	if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
	return n.toFixed(n < 10 ? 2 : digits);
}
function formatBenchTable(report) {
	const rows = [[
		"agent",
		"files",
		"MB",
		"read",
		"pass",
		"seconds",
		"MB/s",
		"events",
		"events/s"
	]];
	for (const a of report.agents) for (const r of a.reads) rows.push([
		a.agent,
		String(a.files),
		(a.bytes / 1e6).toFixed(1),
		r.mode === "full" ? "full" : "usage-only",
		`${r.phase} (${r.via})`,
		r.seconds.toFixed(3),
		fmt(r.mbPerSec, 0),
		String(r.events),
		fmt(r.eventsPerSec, 0)
	]);
	const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
	const right = /* @__PURE__ */ new Set([
		1,
		2,
		5,
		6,
		7,
		8
	]);
	return rows.map((row) => row.map((c, i) => right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])).join("  ").trimEnd()).join("\n") + "\n";
}
/** `--roots` entries: `agent=path` for one agent, a bare path for every selected agent. */
function parseRoots(entries, selected) {
	if (entries === void 0) return void 0;
	const out = /* @__PURE__ */ new Map();
	for (const e of entries) {
		const eq = e.indexOf("=");
		const name = eq > 0 ? e.slice(0, eq) : void 0;
		const path = eq > 0 ? e.slice(eq + 1) : e;
		if (name !== void 0 && !existsSync(name) && /^[\w-]+$/.test(name)) {
			const c = getCodec(name);
			out.set(c, [...out.get(c) ?? [], path]);
		} else {
			if (selected.length !== 1) throw new CliError("USAGE_ERROR", `--roots ${e}: name the agent (agent=path) or select one agent with --agent`);
			const c = selected[0];
			out.set(c, [...out.get(c) ?? [], e]);
		}
	}
	return out;
}
var bench_default;
var init_bench = __esmMin((async () => {
	await init_registry();
	await init_scan();
	init_command();
	bench_default = defineCommand({
		name: "bench",
		description: "Measure how fast sessionfold reads your own history: full and usage-only reads, cold and warm, per agent.",
		usage: "[--agent <id,id>] [--roots <path|agent=path,…>] [--json]",
		options: {
			agent: {
				type: "string",
				short: "a",
				description: "Agents to measure (default: every agent with data)",
				valueName: "<id,id>",
				multiple: true
			},
			roots: {
				type: "string",
				description: "Roots to read instead of the defaults: agent=path, or a path with one --agent",
				valueName: "<paths>",
				multiple: true
			},
			json: {
				type: "boolean",
				description: "Print the report as JSON"
			}
		},
		async run(ctx) {
			const names = list(ctx, "agent");
			const selected = names ? [...new Set(names.map((n) => getCodec(n)))] : [...listCodecs()];
			const rootMap = parseRoots(list(ctx, "roots"), selected);
			let env = ctx.env;
			let source = rootMap ? "roots" : "default-roots";
			let plan = selected.filter((c) => !rootMap || rootMap.has(c)).map((codec) => ({
				codec,
				roots: rootMap?.get(codec) ?? codec.defaultRoots(env)
			}));
			let agents = await benchAgents(plan, env);
			if (agents.length === 0 && !rootMap) {
				env = demoEnv();
				source = "demo";
				ctx.stderr.write(`No agent history found under the default roots; measuring the bundled demo history (${dirname(env.CLAUDE_CONFIG_DIR)}).\n`);
				plan = selected.map((codec) => ({
					codec,
					roots: codec.defaultRoots(env)
				}));
				agents = await benchAgents(plan, env);
			}
			if (agents.length === 0) throw new CliError("SESSION_NOT_FOUND", "no session files found under the given roots");
			const c = cpus();
			const report = {
				source,
				agents,
				machine: {
					node: process.version,
					platform: `${process.platform}-${process.arch}`,
					cpu: c[0]?.model ?? "unknown",
					cores: c.length
				}
			};
			if (bool(ctx, "json")) ctx.stdout.write(JSON.stringify(report, null, 2) + "\n");
			else {
				ctx.stdout.write(formatBenchTable(report));
				ctx.stdout.write(`\n${report.machine.cpu}, ${report.machine.cores} cores, Node ${report.machine.node}. Warm full reads have the OS page cache; warm usage-only reads go through an event cache built for this run (your own cache is not touched).\n`);
			}
			return 0;
		}
	});
}));
// dist/src/cli/commands.js
const COMMANDS = {
	start: {
		description: "The main job: recent sessions and cost over your agent folders (or the demo history)",
		load: () => init_start().then(() => start_exports)
	},
	read: {
		description: "Stream a session file as NDJSON events, resumably",
		load: () => init_read().then(() => read_exports)
	},
	agents: {
		description: "List the registered agents and their roots",
		load: () => init_agents().then(() => agents_exports)
	},
	cost: {
		description: "What your agents cost: `cost report` by day, model, agent, project, session or tag",
		load: () => Promise.resolve().then(() => (init_cost(), cost_exports))
	},
	events: {
		description: "Bulk usage events: `events export` (NDJSON/CSV, incremental with --after)",
		load: () => Promise.resolve().then(() => (init_events(), events_exports))
	},
	sessions: {
		description: "List, show, search, export, diff and resume sessions",
		load: () => Promise.resolve().then(() => (init_sessions(), sessions_exports))
	},
	bench: {
		description: "Measure how fast sessionfold reads your own history (full and usage-only, cold and warm)",
		load: () => init_bench().then(() => bench_exports)
	}
};
// dist/src/cli/run.js
/**
* `runCli(argv, io)`: the whole CLI as a function (tests call it with fake streams; main.ts calls it with the
* process's). `sessionfold <command> [...]`; `sessionfold --help` lists commands.
*/
init_command();
async function runCli(argv, io = {
	stdout: process.stdout,
	stderr: process.stderr,
	env: process.env
}) {
	const [name, ...rest] = argv;
	if (name === void 0 || name === "--help" || name === "-h" || name === "help") {
		io.stdout.write(topUsage());
		return name === void 0 ? 1 : 0;
	}
	if (name === "--version" || name === "-v") {
		const { createRequire } = await import("node:module");
		const pkg = createRequire(import.meta.url)("../../../package.json");
		io.stdout.write(`${pkg.version}\n`);
		return 0;
	}
	const entry = COMMANDS[name];
	if (!entry) {
		io.stderr.write(`error USAGE_ERROR: unknown command "${name}"\n\n${topUsage()}`);
		return 1;
	}
	let def = (await entry.load()).default;
	let prefix = `sessionfold ${name}`;
	let args = rest;
	while (def.subCommands) {
		const [sub, ...more] = args;
		if (sub === void 0 || sub === "--help" || sub === "-h") {
			io.stdout.write(formatUsage(def, prefix));
			return sub === void 0 ? 1 : 0;
		}
		const load = def.subCommands[sub];
		if (!load) {
			io.stderr.write(`error USAGE_ERROR: unknown command "${name} ${sub}"\n\n${formatUsage(def, prefix)}`);
			return 1;
		}
		def = (await load()).default;
		prefix = `${prefix} ${sub}`;
		args = more;
	}
	const usage = formatUsage(def, prefix);
	try {
		const { positionals, values } = parseCommandArgs(def, args);
		if (values.help === true) {
			io.stdout.write(usage);
			return 0;
		}
		if (!def.run) throw new CliError("USAGE_ERROR", `"${prefix}" needs a sub-command`);
		const code = await def.run({
			positionals,
			values,
			stdout: io.stdout,
			stderr: io.stderr,
			env: io.env
		});
		return typeof code === "number" ? code : 0;
	} catch (e) {
		return reportError(e, io.stderr, e instanceof CliError ? usage : void 0);
	}
}
function topUsage() {
	const lines = [
		"Usage: sessionfold <command> [options]",
		"",
		"Commands:"
	];
	for (const [n, c] of Object.entries(COMMANDS)) lines.push(`  ${n.padEnd(10)} ${c.description}`);
	lines.push("", "Run `sessionfold <command> --help` for a command's options.");
	return lines.join("\n") + "\n";
}
// dist/src/cli/main.js
/** The sessionfold executable: runs the CLI with the process's streams. Importing it runs nothing. */
const entry = process.argv[1];
if (entry !== void 0 && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
	for (const stream of [process.stdout, process.stderr]) stream.on("error", (e) => {
		if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
		throw e;
	});
	process.exitCode = await runCli(process.argv.slice(2));
}
export { runCli };
