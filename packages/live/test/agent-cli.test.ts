/**
 * The agent CLI's path of e2e:live: `tool-rescue serve` as its own process (here the CLI from
 * source, so no build is needed) in front of the replay server, and its `/metrics` counts.
 *
 * The opencode run itself installs a 354 MB CLI, so it is opt-in, as `pnpm e2e:agents` is: it runs
 * when `TOOL_RESCUE_AGENTS_PREFIX` names a prefix where `opencode-ai` is installed
 * (`TOOL_RESCUE_AGENTS_PREFIX=/tmp/tool-rescue-agents pnpm e2e:agents opencode` installs it there).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import { rm } from "node:fs/promises"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import {
  afterToolResult,
  agentCli,
  answering,
  isInstalled,
  offersTools,
  runCli,
  spawnQuiet,
} from "@tool-rescue/agent-clis"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { type ReplayRequest, type ReplayStep, startReplayServer } from "@tool-rescue/testing"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { passed } from "../src/live-report.ts"
import { liveTasks } from "../src/live-turn.ts"
import { runLive } from "../src/run-live.ts"
import { parseCounts, startServe } from "../src/serve-process.ts"
import { ANSWER, expectTasksDone, SUMMARY } from "./live-expect.ts"

const sourceServe = [
  process.execPath,
  "--conditions=@tool-rescue/source",
  join(import.meta.dirname, "../../cli/src/bin.ts"),
]

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A Qwen3-Coder call written as text, of opencode's `read` tool. */
const leak = (tool: string, argument: string, value: string) =>
  `I'll read it.\n<function=${tool}>\n<parameter=${argument}>\n${value}\n</parameter>\n</function>\n</tool_call>`

describe("tool-rescue serve as a process", () => {
  it("counts a leak and its recovery in /metrics, and not markup kept as text", async () => {
    const upstream = await startReplayServer({
      script: [
        { content: leak("read_file", "path", "a.ts"), chunkSize: 7 },
        { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
        // A tool that is not offered: kept as text, never retried, so not a leak of the report.
        { content: leak("delete_file", "path", "a.ts"), chunkSize: 7 },
      ],
    })
    cleanups.push(() => upstream.close())
    const serve = await startServe(upstream.url, sourceServe)
    cleanups.push(() => serve.close())
    expect(await serve.counts()).toEqual({ leaks: 0, recoveries: 0, errors: {} })
    const client = new OpenAI({ baseURL: serve.url, apiKey: "test", maxRetries: 0 })
    const completion = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "read a.ts" }],
      tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
    })
    const [choice] = completion.choices
    expect(choice?.message.content ?? "").not.toContain("<function=")
    expect(choice?.message.tool_calls?.map((call) => call.type === "function" && call.function.name)).toEqual(
      ["read_file"],
    )
    expect(await serve.counts()).toEqual({ leaks: 1, recoveries: 1, errors: {} })
    await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "delete a.ts" }],
      tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
    })
    expect(await serve.counts()).toEqual({ leaks: 1, recoveries: 1, errors: {} })
  })

  it("reads failed outcomes as recovery error codes, and leaves out markup kept as text", () => {
    const line = (outcome: string, n: number) =>
      `tool_rescue_proxy_leaks_total{protocol="chat",format="qwen3-coder",outcome="${outcome}",model="m"} ${n}`
    const metrics = [
      "# HELP x",
      line("recovered", 2),
      line("repeated", 1),
      line("truncated", 1),
      line("not-offered", 1),
      line("in-reasoning", 3),
      "",
    ]
    expect(parseCounts(metrics.join("\n"))).toEqual({
      leaks: 4,
      recoveries: 2,
      errors: { "repeated-markup": 1, "truncated-call": 1 },
    })
  })

  it("a serve that cannot start says why", async () => {
    await expect(startServe("not a url", sourceServe)).rejects.toThrow(/tool-rescue serve exited 2/)
  })

  it("a serve that neither prints its URL nor exits is stopped, with an error naming what was awaited", async () => {
    const silent = [process.execPath, "-e", "setInterval(() => {}, 1000)"]
    await expect(startServe("http://127.0.0.1:9/v1", silent, { startTimeoutMs: 1000 })).rejects.toThrow(
      /tool-rescue serve printed no "listening on <url>" line in 1 s, and did not exit/,
    )
  })
})

/**
 * opencode's tools: `read` and `write` take `filePath`, `glob` a `pattern`. The read task leaks
 * its call as text; the retry gets it structured, or (`leakTwice`) a second leak.
 */
const opencodeScript =
  ({ leakTwice = false } = {}) =>
  (request: ReplayRequest): ReplayStep => {
    if (!offersTools(request)) return { content: "A title" }
    const task = liveTasks.find((t) => request.rawBody.includes(t.prompt))?.id
    const results = (request.body?.messages ?? []).filter((message) => message.role === "tool").length
    const write = (filePath: string) => ({
      toolCalls: [{ name: "write", arguments: JSON.stringify({ filePath, content: SUMMARY }) }],
    })
    if (task === "summarize") {
      if (results === 0) return { toolCalls: [{ name: "glob", arguments: '{"pattern":"**/*"}' }] }
      if (results === 1) return { toolCalls: [{ name: "read", arguments: '{"filePath":"README.md"}' }] }
      if (results === 2) return write("summary.txt")
      return { content: "Done." }
    }
    if (afterToolResult(request)) return { content: task === "read" ? ANSWER : "Done." }
    if (task === "escape") return write("../outside.txt")
    if (!isRetryRequest(request.rawBody) || leakTwice)
      return { content: leak("read", "filePath", "config.json"), chunkSize: 7 }
    return { toolCalls: [{ name: "read", arguments: '{"filePath":"config.json"}' }] }
  }

const prefix = process.env.TOOL_RESCUE_AGENTS_PREFIX
const optIn = prefix !== undefined && isInstalled(agentCli("opencode"), prefix)

describe.skipIf(!optIn)("opencode through tool-rescue serve (opt-in: TOOL_RESCUE_AGENTS_PREFIX)", () => {
  it("the leak is recovered, the read ran once, the approved write ran, the denied one did not", async () => {
    const upstream = await startReplayServer({ script: opencodeScript() })
    cleanups.push(() => upstream.close())
    const report = await runLive({
      target: { baseURL: upstream.url, model: "replay-model", apiKey: "test" },
      adapters: ["opencode"],
      serveCommand: sourceServe,
      keep: true,
    })
    cleanups.push(() => rm(report.root, { recursive: true, force: true }))
    const [opencode] = report.adapters
    expect(opencode?.adapter).toBe("opencode")
    expectTasksDone(report, opencode, { read: "read", list: "glob", write: "write" })
    expect(passed(report)).toBe(true)
  }, 600_000) // three opencode runs of 8–20 s each, on a loaded machine

  it("a second leak ends the turn with an explicit error, and no tool ran", async () => {
    const upstream = await startReplayServer({ script: opencodeScript({ leakTwice: true }) })
    cleanups.push(() => upstream.close())
    const report = await runLive({
      target: { baseURL: upstream.url, model: "replay-model", apiKey: "test" },
      adapters: ["opencode"],
      tasks: liveTasks.slice(0, 1),
      serveCommand: sourceServe,
    })
    const [opencode] = report.adapters
    expect(opencode, JSON.stringify(opencode?.tasks)).toMatchObject({
      recoveries: 0,
      errors: { "repeated-markup": 1 },
      failures: 0,
      toolRuns: {},
    })
    expect(opencode?.leaks).toBeGreaterThanOrEqual(1)
    expect(opencode?.tasks[0]).toMatchObject({ outcome: "recovery-error", code: "repeated-markup" })
    expect(passed(report)).toBe(true)
  }, 300_000)
})

describe("agent-clis processes", () => {
  const missing = join(import.meta.dirname, "no-such-cli")

  it("runCli answers a CLI that cannot start (its binary gone) with its error, instead of throwing out of the run", async () => {
    const result = await runCli(missing, ["run"], {}, import.meta.dirname)
    expect(result.code).toBeNull()
    expect(result.stderr).toContain("ENOENT")
  })

  it("spawnQuiet: a program that cannot start ends with its error, and answering says so instead of waiting", async () => {
    const program = spawnQuiet(missing, ["start"], {})
    expect(await program.ended).toMatchObject({ code: null, error: { code: "ENOENT" } })
    await expect(answering("http://127.0.0.1:9/", program.ended)).rejects.toThrow(
      /http:\/\/127\.0\.0\.1:9\/ never answered: its program could not start: .*ENOENT/,
    )
  })

  it("answering lets go of the response it got: its request is over, though the body never ends", async () => {
    // undici's own account of its requests: one still open when `answering` returns holds its
    // socket until the response is garbage-collected.
    const over: string[] = []
    const ended = (message: unknown) => {
      const { request } = message as { request: { origin: string } }
      over.push(String(request.origin))
    }
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.write("a body that never ends")
    })
    cleanups.push(async () => {
      unsubscribe("undici:request:error", ended)
      unsubscribe("undici:request:trailers", ended)
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    })
    subscribe("undici:request:error", ended)
    subscribe("undici:request:trailers", ended)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    await answering(`http://127.0.0.1:${port}/`)
    expect(over).toContain(`http://127.0.0.1:${port}`)
  })
})
