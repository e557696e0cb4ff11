/**
 * `tool-rescue serve` says what it does: started as a user starts it (the bin, a child process,
 * stderr not a terminal so JSON lines), each outcome provoked against the replay server, every
 * line checked for the fields it must name and for what it must never hold.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startReplayServer } from "@tool-rescue/testing"
import { describe, expect, it } from "vitest"
import { chatTurns } from "../../proxy/test/support/chat-turns.ts"
import { main } from "../src/main.ts"
import { closedPort, serve, testIo } from "./support.ts"

const LEAK =
  "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"
const CUT = '<tool_call>\n{"name": "read_file", "arguments": {"path": "aaaaaaaa'
const UNKNOWN = '<tool_call>\n{"name": "launch_rockets", "arguments": {}}\n</tool_call>'
const PROMPT = "please read the private-prompt-words file"
const KEY = "Bearer sk-never-in-a-log-line"
const TOOLS = [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }]

const chat = chatTurns({ prompt: PROMPT, authorization: KEY, tools: TOOLS })

/** Nothing the user or the model wrote, and no credential, in any line. */
function expectClean(text: string): void {
  expect(text).not.toContain("private-prompt-words")
  expect(text).not.toContain("sk-never-in-a-log-line")
  expect(text).not.toContain("<tool_call>")
  expect(text).not.toContain("launch_rockets")
}

describe("tool-rescue serve: its log lines", () => {
  it("one JSON line per outcome, with model, protocol, route, format, tools, rounds and time; start-up, upstream and shutdown lines", async () => {
    const upstream = await startReplayServer({
      models: ["qwen3-coder", "llama-4"],
      script: [
        { content: "Hello." },
        { content: LEAK },
        { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] },
        { content: LEAK },
        { content: LEAK },
        { content: CUT, finishReason: "length" },
        { content: CUT, finishReason: "length" },
        { content: `Here. ${UNKNOWN}` },
        { httpError: { status: 503, message: "overloaded" } },
        { content: ["Hello ", "there ", "friend."], interrupt: { kind: "stall", afterChunks: 1 } },
      ],
    })
    const run = serve(["--upstream", upstream.url])
    try {
      const url = await run.url
      await (await chat(url, false)).text() // clean: no line
      await (await chat(url, true)).text() // recovered
      await (await chat(url, false)).text() // repeated
      await (await chat(url, true)).text() // truncated
      await (await chat(url, false)).text() // not offered
      await (await chat(url, true)).text() // upstream error
      const controller = new AbortController()
      const reader = (await chat(url, true, controller.signal)).body!.getReader()
      await reader.read()
      controller.abort() // client gone
      await expect
        .poll(() => run.lines().some((line) => line.outcome === "client-gone"), { timeout: 5000 })
        .toBe(true)
      await expect
        .poll(() => run.lines().some((line) => line.msg === "upstream reachable: 2 models"))
        .toBe(true)
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)

      const lines = run.lines()
      const turns = lines.filter((line) => line.outcome !== undefined)
      expect(turns.map((line) => [line.level, line.outcome, line.format, line.rounds])).toEqual([
        [30, "recovered", "qwen3-coder", 2],
        [40, "repeated", "qwen3-coder", 2],
        [40, "truncated", "hermes", 2],
        [30, "not-offered", "hermes", 1],
        [40, "upstream-error", null, 1],
        [30, "client-gone", null, 1],
      ])
      for (const line of turns) {
        expect(line).toMatchObject({
          model: "qwen3-coder",
          protocol: "chat",
          route: "/v1/chat/completions",
          tools: ["read_file"],
        })
        expect(typeof line.ms).toBe("number")
        expect(typeof line.time).toBe("number")
      }
      expect(turns[4]).toMatchObject({ status: 503 })
      const messages = lines.map((line) => line.msg)
      expect(messages[0]).toBe("tool-rescue proxy started")
      expect(lines[0]).toMatchObject({ url, upstream: upstream.url, maxRecoveries: 1, failedLog: null })
      expect(lines.find((line) => line.msg === "upstream reachable: 2 models")).toMatchObject({
        models: ["qwen3-coder", "llama-4"],
      })
      expect(messages.slice(-2)).toEqual(["stopping: in-flight requests get the grace period", "stopped"])
      const { stdout, stderr } = run.output()
      expectClean(stdout + stderr)
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
    }
  })

  it("a failed-log write that fails is said on stderr, counted in /metrics, and the turn's line says persist-failed", async () => {
    const upstream = await startReplayServer({ script: [{ content: LEAK }] })
    // /dev/full opens, and every write to it fails (ENOSPC): a full disk.
    const run = serve(["--upstream", upstream.url, "--failed-log", "/dev/full", "--log-level", "warn"])
    try {
      const url = await run.url
      expect((await chat(url, false)).status).toBe(500)
      const metrics = await (await fetch(`${url.replace(/\/v1$/, "")}/metrics`)).text()
      expect(metrics).toContain('tool_rescue_proxy_persist_failures_total{protocol="chat"} 1')
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)
      const lines = run.lines()
      // --log-level warn: no start-up line, no info line.
      expect(lines.every((line) => (line.level as number) >= 40)).toBe(true)
      const write = lines.find((line) => String(line.error ?? "").includes("ENOSPC"))
      expect(write).toMatchObject({ level: 50, protocol: "chat", outcome: "retried" })
      expect(lines.find((line) => line.outcome === "persist-failed")).toMatchObject({
        level: 50,
        model: "qwen3-coder",
      })
      expectClean(run.output().stderr)
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
    }
  })

  it("an upstream that cannot be reached is a warning at start, not a refusal", async () => {
    const port = await closedPort()
    const run = serve(["--upstream", `http://127.0.0.1:${port}/v1`])
    try {
      await run.url
      await expect
        .poll(() => run.lines().find((line) => line.level === 40)?.msg, { timeout: 8000 })
        .toMatch(
          /^upstream not reachable: connection refused: nothing is listening at http:\/\/127\.0\.0\.1:\d+\/v1\/models/,
        )
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)
    } finally {
      run.child.kill("SIGKILL")
    }
  })

  it("a --failed-log that cannot be opened stops the start with exit code 2, naming it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tool-rescue-serve-"))
    try {
      const path = join(dir, "missing", "failed.jsonl")
      const io = testIo()
      expect(await main(["serve", "--upstream", "http://127.0.0.1:9/v1", "--failed-log", path], io)).toBe(2)
      expect(io.stderr.text()).toContain(`cannot open --failed-log '${path}': its directory does not exist`)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("refuses a log level it does not know, with exit code 2", async () => {
    const io = testIo()
    expect(await main(["serve", "--upstream", "http://127.0.0.1:9/v1", "--log-level", "loud"], io)).toBe(2)
    expect(io.stderr.text()).toContain("--log-level")
  })
})

describe("tool-rescue serve: its failed log", () => {
  it("is created 0600 and holds the records scan re-judges", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tool-rescue-serve-"))
    const upstream = await startReplayServer({ script: [{ content: LEAK }] })
    const log = join(dir, "failed.jsonl")
    const run = serve(["--upstream", upstream.url, "--failed-log", log, "--max-recoveries", "0"])
    try {
      const url = await run.url
      expect((await chat(url, false)).status).toBe(422)
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)
      const { stat } = await import("node:fs/promises")
      expect((await stat(log)).mode & 0o777).toBe(0o600)
      const record = JSON.parse((await readFile(log, "utf8")).trim()) as Record<string, unknown>
      expect(record).toMatchObject({ outcome: "repeated", model: "qwen3-coder", tools: ["read_file"] })
      // scan re-judges the proxy's own log with no flags: the offered tools are in each line.
      const io = testIo()
      expect(await main(["scan", log, "--json"], io)).toBe(1)
      const report = JSON.parse(io.stdout.text()) as Record<string, unknown>
      expect(report).toMatchObject({
        responses: 1,
        responsesWithLeaks: 1,
        recoverable: 1,
        responsesWithoutTools: 0,
      })
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
