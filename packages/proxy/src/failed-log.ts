import { appendFile, type FileHandle, open } from "node:fs/promises"
import type { FailedRecord } from "./failed-record.ts"
import type { ProxyFailedResponse } from "./proxy-failed-response.ts"

/** The failed log holds prompts' answers: readable by its owner only (the mode applies on creation). */
const MODE = 0o600

/** The failed-log line of `failed`, its fields in {@link FailedRecord}'s order. */
export function failedLine(failed: ProxyFailedResponse, time: Date = new Date()): string {
  const record: FailedRecord = {
    time: time.toISOString(),
    model: failed.model ?? null,
    protocol: failed.protocol,
    route: failed.route,
    format: failed.format,
    tools: failed.tools,
    outcome: failed.outcome,
    round: failed.round,
    rounds: failed.rounds,
    recoveriesBefore: failed.recoveriesBefore,
    text: failed.text,
    reasoning: failed.reasoning,
    markup: failed.markup,
  }
  return `${JSON.stringify(record)}\n`
}

/** Writes lines one at a time, in order; each write's promise settles with its own result. */
function serialWriter(write: (line: string) => Promise<void>): (line: string) => Promise<void> {
  let last: Promise<void> = Promise.resolve()
  return (line) => {
    const written = last.then(() => write(line))
    last = written.catch(() => undefined)
    return written
  }
}

/**
 * A `persistFailed` hook that appends each malformed response to a JSONL file: one
 * {@link FailedRecord} a line (`parseFailedRecord` reads them back). It holds only what the
 * model wrote and the offered tools' names — never a request header, so never a credential. The
 * file is created readable by its owner only (0600). Lines are written one at a time, in order;
 * a write that fails rejects (before a retry that ends the turn with `persist-failed`). The file
 * is opened at each write: {@link openFailedLog} opens it once, at start.
 *
 * @example
 * ```ts
 * import { createFailedLog, startProxyServer } from "@tool-rescue/proxy/node"
 *
 * await startProxyServer({ upstream: "http://127.0.0.1:11434/v1", persistFailed: createFailedLog("failed.jsonl") })
 * ```
 */
export function createFailedLog(path: string): (failed: ProxyFailedResponse) => Promise<void> {
  const write = serialWriter((line) => appendFile(path, line, { encoding: "utf8", mode: MODE }))
  return (failed) => write(failedLine(failed))
}

/**
 * A failed log opened by {@link openFailedLog}.
 *
 * @example
 * ```ts
 * import { type FailedLog, openFailedLog } from "@tool-rescue/proxy/node"
 *
 * const log: FailedLog = await openFailedLog("failed.jsonl")
 * await log.close()
 * ```
 */
export interface FailedLog {
  readonly path: string
  /** The `persistFailed` hook (see {@link createFailedLog}). */
  readonly persistFailed: (failed: ProxyFailedResponse) => Promise<void>
  /** Waits for the pending writes, then closes the file. */
  close(): Promise<void>
}

/**
 * Opens (or creates, 0600) the failed log for appending, at once: a path that cannot be opened
 * (a missing directory, no permission) rejects here, with Node's error (its `code` and `path`),
 * before the proxy serves anything. Writes then go to the open file, one at a time, in order.
 *
 * @example
 * ```ts
 * import { openFailedLog, startProxyServer } from "@tool-rescue/proxy/node"
 *
 * const log = await openFailedLog("failed.jsonl")
 * const server = await startProxyServer({ upstream: "http://127.0.0.1:11434/v1", persistFailed: log.persistFailed })
 * ```
 */
export async function openFailedLog(path: string): Promise<FailedLog> {
  const handle: FileHandle = await open(path, "a", MODE)
  let pending: Promise<void> = Promise.resolve()
  const write = serialWriter(async (line) => {
    await handle.appendFile(line, "utf8")
  })
  return {
    path,
    persistFailed(failed) {
      const written = write(failedLine(failed))
      pending = written.catch(() => undefined)
      return written
    },
    async close() {
      await pending
      await handle.close()
    },
  }
}
