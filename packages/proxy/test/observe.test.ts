/**
 * What the proxy says it did: a failed log a reader can use (every withheld malformed response,
 * with model, protocol, route, tools, outcome, rounds), its turn lines through `logger`, and
 * counts by model.
 */
import { mkdtemp, readFile, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { createProxyMetrics, parseFailedRecord } from "../src/index.ts"
import { type FailedRecord, openFailedLog } from "../src/node.ts"
import { chatTurns } from "./support/chat-turns.ts"
import { captureLogger, harnessPerTest, QWEN_LEAK, READ_FILE_TOOL } from "./support/harness.ts"

const start = harnessPerTest()
const PROMPT = "Show me a.ts, secret prompt words"
const KEY = "Bearer sk-secret-key-123"
const UNKNOWN_LEAK = '<tool_call>\n{"name": "launch_rockets", "arguments": {}}\n</tool_call>'

const chat = chatTurns({ prompt: PROMPT, authorization: KEY, tools: [READ_FILE_TOOL] })

async function records(path: string): Promise<FailedRecord[]> {
  const text = await readFile(path, "utf8")
  return text
    .trim()
    .split("\n")
    .map((line) => {
      const parsed = parseFailedRecord(line)
      if (parsed.kind === "invalid") throw new Error(parsed.reason)
      return parsed.record
    })
}

describe("the failed log", () => {
  it("holds every withheld malformed response with model, protocol, route, tools, outcome and rounds; created 0600", async () => {
    const dir = await mkdtemp(join(tmpdir(), "failed-log-"))
    const path = join(dir, "failed.jsonl")
    const log = await openFailedLog(path)
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    const harness = await start(
      [{ content: QWEN_LEAK }, { content: `Again.\n${QWEN_LEAK}` }, { content: UNKNOWN_LEAK }],
      {
        persistFailed: log.persistFailed,
      },
    )
    expect((await chat(harness.proxy.url)).status).toBe(422)
    await (await chat(harness.proxy.url, true)).text()
    await log.close()
    const written = await records(path)
    expect(written.map((r) => [r.outcome, r.round, r.rounds])).toEqual([
      ["retried", 0, 1],
      ["repeated", 1, 2],
      ["not-offered", 0, 1],
    ])
    for (const record of written) {
      expect(record).toMatchObject({
        model: "qwen3-coder",
        protocol: "chat",
        route: "/v1/chat/completions",
        tools: ["read_file"],
      })
      expect(Date.parse(record.time)).not.toBeNaN()
    }
    expect(written.map((r) => r.format)).toEqual(["qwen3-coder", "qwen3-coder", "hermes"])
    expect(written[1]!.text).toBe(`Again.\n${QWEN_LEAK}`)
    // Never the prompt, never a header.
    const text = await readFile(path, "utf8")
    expect(text).not.toContain("secret prompt")
    expect(text).not.toContain("sk-secret")
  })

  it("a leak with no retry left (maxRecoveries 0) is in it as repeated", async () => {
    const dir = await mkdtemp(join(tmpdir(), "failed-log-"))
    const log = await openFailedLog(join(dir, "failed.jsonl"))
    const harness = await start([{ content: QWEN_LEAK }], {
      persistFailed: log.persistFailed,
      maxRecoveries: 0,
    })
    expect((await chat(harness.proxy.url)).status).toBe(422)
    await log.close()
    expect((await records(join(dir, "failed.jsonl"))).map((r) => r.outcome)).toEqual(["repeated"])
    expect(harness.turns()).toBe(1)
  })

  it("a path that cannot be opened rejects at once, naming it", async () => {
    const path = join(tmpdir(), "no-such-dir-for-tool-rescue", "failed.jsonl")
    await expect(openFailedLog(path)).rejects.toMatchObject({ code: "ENOENT", path })
  })

  it("a hook that fails is counted in /metrics and said through the logger", async () => {
    const { logger, lines } = captureLogger()
    const harness = await start([{ content: QWEN_LEAK }], {
      logger,
      persistFailed: () => Promise.reject(new Error("EROFS: read-only file system, open 'failed.jsonl'")),
    })
    expect((await chat(harness.proxy.url)).status).toBe(500)
    const metrics = await (await fetch(`${harness.proxy.url.replace(/\/v1$/, "")}/metrics`)).text()
    expect(metrics).toContain('tool_rescue_proxy_persist_failures_total{protocol="chat"} 1')
    expect(lines.map((l) => [l.level, l.outcome])).toEqual([
      ["error", "retried"],
      ["error", "persist-failed"],
    ])
    expect(lines[0]!.error).toContain("EROFS")
  })
})

describe("the turn lines", () => {
  it("one line per turn worth knowing, with model, protocol, route, format, tools, rounds and ms; none for a clean turn", async () => {
    const { logger, lines } = captureLogger()
    const harness = await start(
      [
        { content: "Hello." },
        { content: QWEN_LEAK },
        { content: "Done." },
        { content: QWEN_LEAK },
        { content: QWEN_LEAK },
        { content: UNKNOWN_LEAK },
        { httpError: { status: 503, message: "overloaded" } },
      ],
      { logger },
    )
    await (await chat(harness.proxy.url)).text() // clean
    await (await chat(harness.proxy.url, true)).text() // recovered
    await (await chat(harness.proxy.url)).text() // repeated
    await (await chat(harness.proxy.url, true)).text() // not offered
    await (await chat(harness.proxy.url)).text() // upstream error
    expect(lines.map((l) => [l.level, l.outcome, l.format, l.rounds])).toEqual([
      ["info", "recovered", "qwen3-coder", 2],
      ["warn", "repeated", "qwen3-coder", 2],
      ["info", "not-offered", "hermes", 1],
      ["warn", "upstream-error", null, 1],
    ])
    for (const line of lines) {
      expect(line).toMatchObject({
        model: "qwen3-coder",
        protocol: "chat",
        route: "/v1/chat/completions",
        tools: ["read_file"],
      })
      expect(typeof line.ms).toBe("number")
      expect(JSON.stringify(line)).not.toMatch(/secret|read_file<|a\.ts/)
    }
    expect(lines[3]).toMatchObject({ status: 503 })
  })

  it("a client that goes away mid-stream gets its line", async () => {
    const { logger, lines } = captureLogger()
    const harness = await start(
      [{ content: ["Hello ", "there ", "friend."], interrupt: { kind: "stall", afterChunks: 1 } }],
      {
        logger,
      },
    )
    const controller = new AbortController()
    const response = await chat(harness.proxy.url, true, controller.signal)
    const reader = response.body!.getReader()
    await reader.read()
    controller.abort()
    await expect.poll(() => lines.map((l) => l.outcome)).toEqual(["client-gone"])
  })
})

describe("counts by model", () => {
  it("/metrics labels requests and leaks by model, so a leak rate per model can be computed", async () => {
    const harness = await start([{ content: QWEN_LEAK }, { content: "ok" }])
    await (await chat(harness.proxy.url)).text()
    const metrics = await (await fetch(`${harness.proxy.url.replace(/\/v1$/, "")}/metrics`)).text()
    expect(metrics).toContain(
      'tool_rescue_proxy_requests_total{protocol="chat",mode="recovered",model="qwen3-coder"} 1',
    )
    expect(metrics).toContain(
      'tool_rescue_proxy_leaks_total{protocol="chat",format="qwen3-coder",outcome="recovered",model="qwen3-coder"} 1',
    )
  })

  it("a leak recovered across an announced-call retry counts as recovered, not as announced", async () => {
    // The budget of two lets a markup retry and an announced-call retry share one turn: the
    // leak of round 0 is still unsettled when round 1 announces a call and round 2 is retried.
    const harness = await start(
      [{ content: QWEN_LEAK }, { content: "I'll use the read_file tool to read a.ts." }, { content: "ok" }],
      { announcedCalls: "retry", maxRecoveries: 2 },
    )
    expect((await chat(harness.proxy.url)).status).toBe(200)
    expect(
      harness.events.map((e) => (e.type === "recovery-started" ? `${e.type}:${e.announced}` : e.type)),
    ).toEqual([
      "markup-detected",
      "recovery-started:undefined",
      "recovery-started:read_file",
      "recovery-succeeded",
    ])
    const metrics = await (await fetch(`${harness.proxy.url.replace(/\/v1$/, "")}/metrics`)).text()
    expect(metrics).toContain(
      'tool_rescue_proxy_leaks_total{protocol="chat",format="qwen3-coder",outcome="recovered",model="qwen3-coder"} 1',
    )
    // An announcement is no call written as text: not a leak (the leak rate's numerator).
    expect(metrics).not.toContain('outcome="announced"')
    expect(metrics).toContain('tool_rescue_proxy_retries_total{protocol="chat"} 2')
  })

  it("a leak naming a tool not offered, retried under unknownToolMarkup: 'retry', counts as the retry's outcome", async () => {
    // Its reason is `unknown-tool`, not `recoverable`; a retry was spent on it all the same.
    const harness = await start([{ content: UNKNOWN_LEAK }, { content: "ok" }], {
      unknownToolMarkup: "retry",
    })
    expect((await chat(harness.proxy.url)).status).toBe(200)
    expect(harness.events.map((e) => (e.type === "markup-detected" ? e.reason : e.type))).toEqual([
      "unknown-tool",
      "recovery-started",
      "recovery-succeeded",
    ])
    const metrics = await (await fetch(`${harness.proxy.url.replace(/\/v1$/, "")}/metrics`)).text()
    expect(metrics).toMatch(
      /tool_rescue_proxy_leaks_total\{[^}]*outcome="recovered",model="qwen3-coder"\} 1\n/,
    )
  })

  it("the model label is bounded under 10,000 distinct model names", async () => {
    const metrics = createProxyMetrics({ maxModels: 50 })
    for (let i = 0; i < 10_000; i++) {
      const model = `model-${i}`
      metrics.request("chat", "recovered", model)
      metrics.turn(
        "chat",
        model,
      )({
        type: "markup-detected",
        round: 0,
        markup: { format: "hermes", start: 0, end: 1, toolName: "x", complete: true } as never,
        recoverable: false,
        reason: "not-offered",
        channel: "text",
        text: "x",
      })
    }
    const text = await metrics.render()
    const models = new Set([...text.matchAll(/model="([^"]*)"/g)].map((m) => m[1]))
    expect(models.size).toBe(51)
    expect(models.has("other")).toBe(true)
    expect(models.has("model-49")).toBe(true)
    expect(models.has("model-50")).toBe(false)
    expect(text).toContain(
      'tool_rescue_proxy_requests_total{protocol="chat",mode="recovered",model="other"} 9950',
    )
  })
})
