import { appendFile } from "node:fs/promises"
import type { FailedResponse } from "@tool-rescue/recovery"

/**
 * A `persistFailed` hook that appends each malformed response to a JSONL file: one line per
 * response, the library hook's {@link FailedResponse} plus `time` (ISO 8601). It holds only what
 * the model wrote — never a request header, so never a credential. Lines are written one at a
 * time, in order; a write that fails rejects, which ends that turn with `persist-failed`.
 *
 * @example
 * ```ts
 * import { createFailedLog, startProxyServer } from "@tool-rescue/proxy/node"
 *
 * await startProxyServer({ upstream: "http://127.0.0.1:11434/v1", persistFailed: createFailedLog("failed.jsonl") })
 * ```
 */
export function createFailedLog(path: string): (failed: FailedResponse) => Promise<void> {
  let last: Promise<void> = Promise.resolve()
  return (failed) => {
    const line = `${JSON.stringify({ time: new Date().toISOString(), ...failed })}\n`
    const write = last.then(() => appendFile(path, line, "utf8"))
    last = write.catch(() => undefined)
    return write
  }
}
