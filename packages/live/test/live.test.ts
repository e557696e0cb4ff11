/**
 * The e2e:live harness, run against the replay server scripted like a model that leaks its first
 * tool call as text: every library adapter's agent loop, the real file tools, the approval gate,
 * and the report's counts. The agent CLI's path: `agent-cli.test.ts`.
 */
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { rm } from "node:fs/promises"
import { join } from "node:path"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import {
  type ReplayRequest,
  type ReplayServer,
  type ReplayStep,
  startReplayServer,
} from "@tool-rescue/testing"
import { afterEach, describe, expect, it } from "vitest"
import { formatJson, formatMarkdown, formatTable, passed } from "../src/live-report.ts"
import { libraryAdapterIds, liveTasks } from "../src/live-turn.ts"
import { runLive } from "../src/run-live.ts"
import { ANSWER, expectTasksDone, SUMMARY } from "./live-expect.ts"

/** A Qwen3-Coder call written as text, the opening `<tool_call>` missing (ollama/ollama#16686). */
const leak =
  "I'll read the config.\n\n<function=read_file>\n<parameter=path>\nconfig.json\n</parameter>\n</function>\n</tool_call>"
/**
 * The answer ends with a call of a tool that is not offered: markup kept as text, never retried,
 * so not a leak of the report (the proxy's `/metrics` does not count it as one either).
 */
const keptAsText = `${ANSWER}\n\n<tool_call>\n{"name": "delete_file", "arguments": {"path": "config.json"}}\n</tool_call>`
/** The retry leaks again, as Hermes JSON. */
const retryLeak = '<tool_call>\n{"name": "read_file", "arguments": {"path": "config.json"}}\n</tool_call>'

function toolResults(request: ReplayRequest): number {
  return (request.body?.messages ?? []).filter((message) => message.role === "tool").length
}

/**
 * Stateless, so every adapter shares one server: the task is the prompt in the request.
 * - read: leaks read_file as text; the retry gets the structured call (or a second leak); then the answer.
 * - summarize: lists the files, reads README.md, writes inside the workspace, then the answer.
 * - escape: a structured write to `../outside.txt`, then the answer.
 */
function script({ leakTwice = false } = {}): (request: ReplayRequest) => ReplayStep {
  return (request) => {
    const task = liveTasks.find((t) => request.rawBody.includes(t.prompt))?.id
    const call = (path: string) => ({
      toolCalls: [{ name: "write_file", arguments: JSON.stringify({ path, content: SUMMARY }) }],
    })
    const results = toolResults(request)
    if (task === "summarize") {
      // list_files without its optional path, read_file, write_file, then the answer.
      if (results === 0) return { toolCalls: [{ name: "list_files", arguments: "{}" }] }
      if (results === 1) return { toolCalls: [{ name: "read_file", arguments: '{"path":"README.md"}' }] }
      if (results === 2) return call("summary.txt")
      return { content: "Done." }
    }
    if (results > 0) return { content: task === "read" ? keptAsText : "Done." }
    if (task === "escape") return call("../outside.txt")
    if (!isRetryRequest(request.rawBody)) return { content: leak, chunkSize: 7 }
    if (leakTwice) return { content: retryLeak, chunkSize: 7 }
    return { toolCalls: [{ name: "read_file", arguments: '{"path":"config.json"}' }] }
  }
}

const servers: ReplayServer[] = []
const roots: string[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

async function live(options: { leakTwice?: boolean } = {}) {
  const server = await startReplayServer({ script: script(options) })
  servers.push(server)
  const report = await runLive({
    target: { baseURL: server.url, model: "replay-model", apiKey: "test" },
    adapters: libraryAdapterIds,
    keep: true,
  })
  roots.push(report.root)
  return { report, server }
}

describe("e2e:live against the replay server", () => {
  it("every adapter: 1 leak, 1 recovery, the read ran once, the approved write ran, the denied one did not", async () => {
    const { report } = await live()
    expect(report.adapters.map((adapter) => adapter.adapter)).toEqual(libraryAdapterIds)
    for (const adapter of report.adapters) {
      expectTasksDone(report, adapter, { read: "read_file", list: "list_files", write: "write_file" })
      expect(adapter.tasks.map((task) => task.outcome)).toEqual(["answered", "answered", "answered"])
    }
    expect(passed(report)).toBe(true)
  })

  it("a second leak in the turn is counted as an explicit error, and no tool ran for it", async () => {
    const { report } = await live({ leakTwice: true })
    for (const adapter of report.adapters) {
      expect(adapter, adapter.adapter).toMatchObject({
        recoveries: 0,
        errors: { "repeated-markup": 1 },
        failures: 0,
        toolRuns: { read_file: 1, list_files: 1, write_file: 2 },
      })
      expect(adapter.leaks, adapter.adapter).toBe(2)
      expect(adapter.tasks[0], adapter.adapter).toMatchObject({
        outcome: "recovery-error",
        code: "repeated-markup",
      })
    }
    expect(passed(report)).toBe(true)
  })

  it("a refused connection is a failed turn: the run does not pass", async () => {
    const server = await startReplayServer({ script: [] })
    const baseURL = server.url
    await server.close()
    const report = await runLive({
      target: { baseURL, model: "m", apiKey: "test" },
      adapters: ["openai"],
      tasks: liveTasks.slice(0, 1),
    })
    expect(report.adapters[0]).toMatchObject({ failures: 1, leaks: 0 })
    // The failure names its causes, down to the refused connection.
    expect(report.adapters[0]?.tasks[0]?.text).toMatch(/fetch failed ← .*ECONNREFUSED/)
    expect(passed(report)).toBe(false)
    expect(existsSync(report.root)).toBe(false)
  })

  it("a turn that outlives its time is aborted and counted as failed", async () => {
    // The endpoint never answers (the stream stalls before its first chunk).
    const server = await startReplayServer({
      script: () => ({ content: "never", interrupt: { kind: "stall", afterChunks: 0 } }),
    })
    servers.push(server)
    const report = await runLive({
      target: { baseURL: server.url, model: "m", apiKey: "test" },
      adapters: libraryAdapterIds,
      tasks: liveTasks.slice(0, 1),
      turnTimeoutMs: 300,
    })
    for (const adapter of report.adapters) {
      expect(adapter.tasks, adapter.adapter).toMatchObject([
        { outcome: "failed", text: "timed out after 300 ms", tools: [] },
      ])
    }
    expect(passed(report)).toBe(false)
  })
})

describe("the report's renderings", () => {
  it("table, Markdown and JSON carry each adapter's counts", async () => {
    const { report } = await live({ leakTwice: true })
    const table = formatTable(report).split("\n")
    expect(table.find((line) => line.startsWith("ai-sdk"))).toMatch(
      /^ai-sdk\s+3\s+\d+\s+0\s+1 repeated-markup\s+0\s+1\s+4\s+\d+\.\ds$/,
    )
    expect(formatMarkdown(report)).toContain("| openai | 3 |")
    expect(JSON.parse(formatJson(report))).toMatchObject({
      model: "replay-model",
      adapters: libraryAdapterIds.map((adapter) => ({ adapter, errors: { "repeated-markup": 1 } })),
    })
  })
})

describe("the e2e:live command", () => {
  it("without a URL it is skipped: one line, exit 0", () => {
    const env = { ...process.env }
    delete env.TOOL_RESCUE_LIVE_URL
    const output = execFileSync(process.execPath, ["--conditions=@tool-rescue/source", "src/main.ts", "--"], {
      cwd: join(import.meta.dirname, ".."),
      env,
      encoding: "utf8",
    })
    expect(output).toBe("e2e:live skipped: no --base-url (or TOOL_RESCUE_LIVE_URL) given.\n")
  })
})
