import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import {
  type ReplayRequest,
  type ReplayServer,
  type ReplayStep,
  startReplayServer,
} from "@tool-rescue/testing/replay"
import { afterEach, describe, expect, it } from "vitest"
import { main } from "../src/main.ts"
import { probePrompts } from "../src/probe/probe-prompts.ts"
import { testIo } from "./support.ts"

const servers: { close(): Promise<void> }[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function replay(script: (request: ReplayRequest) => ReplayStep): Promise<ReplayServer> {
  const server = await startReplayServer({ script })
  servers.push(server)
  return server
}

/** The prompt a chat request carries (its last user message). */
function promptOf(request: ReplayRequest): number {
  const user = request.body?.messages?.filter((message) => message.role === "user").at(-1)
  return probePrompts.indexOf(typeof user?.content === "string" ? user.content : "")
}

const isRetry = (request: ReplayRequest): boolean => isRetryRequest(request.rawBody)
/** The chat requests (the doctor also asks GET /v1/models who owns the model). */
const chat = (server: ReplayServer): readonly ReplayRequest[] =>
  server.requests.filter((r) => r.api === "chat")
const leak = (tool: string, key: string): string =>
  `Let me do that.\n\n<function=${tool}>\n<parameter=${key}>\nx\n</parameter>\n</function>\n</tool_call>`
const call = (tool: string): ReplayStep => ({
  toolCalls: [{ name: tool, arguments: '{"path":"package.json"}' }],
})

interface ProbeJson {
  summary: {
    runs: number
    without: { toolCalls: number; leaks: number; text: number; leakRate: number }
    with: {
      toolCalls: number
      recoveries: number
      recovered: number
      failed: number
      recoveryRate: number
      text: number
    }
    formats: Record<string, number>
  }
  runs: {
    without: { prompt: number; outcome: string }[]
    with: { prompt: number; outcome: string; addedMs?: number }[]
  }
}

async function probe(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const io = testIo()
  const code = await main(["probe", ...args], io)
  return { code, stdout: io.stdout.text(), stderr: io.stderr.text() }
}

describe("probe against the replay server", () => {
  it("measures the leak rate the script sets, and the recovery of every leak", async () => {
    // Prompts 1 and 4 leak (a Qwen3-Coder call without <tool_call>); the retries call properly.
    const server = await replay((request) => {
      const prompt = promptOf(request)
      if (isRetry(request)) return call("read_file")
      if (prompt === 1 || prompt === 4) return { content: leak("bash", "command"), chunkSize: 7 }
      if (prompt === 5) return { content: "I would rather not." }
      return call("read_file")
    })
    const run = await probe(["--base-url", server.url, "--model", "replay-model", "--runs", "6", "--json"])
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    const report = JSON.parse(run.stdout) as ProbeJson
    expect(report.summary.runs).toBe(6)
    expect(report.summary.without).toMatchObject({ toolCalls: 3, leaks: 2, text: 1 })
    expect(report.summary.without.leakRate).toBeCloseTo(2 / 6)
    expect(report.summary.with).toMatchObject({
      toolCalls: 3,
      recoveries: 2,
      recovered: 2,
      failed: 0,
      text: 1,
      recoveryRate: 1,
    })
    expect(report.summary.formats).toEqual({ "qwen3-coder": 4 })
    expect(report.runs.without.map((r) => r.outcome)).toEqual([
      "tool-call",
      "leak",
      "tool-call",
      "tool-call",
      "leak",
      "text",
    ])
    expect(report.runs.with.map((r) => r.outcome)).toEqual([
      "tool-call",
      "recovered",
      "tool-call",
      "tool-call",
      "recovered",
      "text",
    ])
    expect(report.runs.with.filter((r) => r.addedMs !== undefined)).toHaveLength(2)
    // 6 requests without recovery, 6 with, and one retry per leak; the API key never leaks into the report.
    expect(chat(server)).toHaveLength(14)
    expect(chat(server).filter(isRetry)).toHaveLength(2)
    expect(run.stdout).not.toContain("apiKey")
    // Real tool schemas went out with every request.
    const tools = server.requests[0]?.body?.tools as {
      function: { name: string; parameters: { required: string[] } }
    }[]
    expect(tools.map((t) => [t.function.name, t.function.parameters.required])).toEqual([
      ["read_file", ["path"]],
      ["bash", ["command"]],
      ["search", ["pattern"]],
    ])
  })

  it("streams, and counts a turn that leaks twice as failed", async () => {
    const server = await replay((request) => {
      const prompt = promptOf(request)
      if (prompt === 0) return { content: leak("read_file", "path"), chunkSize: 3 }
      if (isRetry(request)) return call("read_file")
      if (prompt === 2) return { content: leak("search", "pattern"), chunkSize: 5 }
      return call("read_file")
    })
    const run = await probe([
      "--base-url",
      server.url,
      "--model",
      "replay-model",
      "--runs",
      "4",
      "--stream",
      "--json",
    ])
    expect(run.code).toBe(0)
    const report = JSON.parse(run.stdout) as ProbeJson
    expect(report.summary.without).toMatchObject({ leaks: 2, toolCalls: 2 })
    expect(report.summary.with).toMatchObject({ recoveries: 2, recovered: 1, failed: 1, recoveryRate: 0.5 })
    expect(chat(server).every((request) => request.body?.stream === true)).toBe(true)
  })

  it("prints a readable report", async () => {
    const server = await replay((request) =>
      promptOf(request) === 0 && !isRetry(request)
        ? { content: leak("read_file", "path") }
        : call("read_file"),
    )
    const run = await probe(["--base-url", server.url, "--model", "replay-model", "--runs", "4"])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      `tool-rescue probe  ${server.url}  model replay-model  4 prompts × 2 · non-streaming`,
    )
    expect(run.stdout).toMatch(/leak rate without recovery\s+25\.0%/)
    expect(run.stdout).toMatch(/recovery success rate\s+100\.0%/)
    expect(run.stdout).toMatch(/added latency per recovery\s+\d+ ms median/)
    // One row per outcome: the leak is shown without recovery, recovered with it.
    expect(run.stdout).toMatch(/leaked → shown as text\s+1\/4 \(25\.0%\)\s+0\/4 \(0\.0%\)/)
    expect(run.stdout).toMatch(/leaked → recovered, tool call\s+–\s+1\/4 \(25\.0%\)/)
    expect(run.stdout).toMatch(/structured tool call\s+3\/4 \(75\.0%\)\s+3\/4 \(75\.0%\)/)
  })
})

describe("probe: progress", () => {
  it("draws a progress bar on a terminal and erases it", async () => {
    const server = await replay(() => call("read_file"))
    const io = testIo({ tty: true })
    expect(await main(["probe", "--base-url", server.url, "--model", "m", "--runs", "2"], io)).toBe(0)
    const frames = io.stderr
      .text()
      .split("\r\u001b[2K")
      .filter((frame) => frame.length > 0)
    expect(frames).toContain("probing without recovery [████████████████████████] 2/2  leaks 0")
    expect(frames).toContain("probing with tool-rescue   [████████████████████████] 2/2  recoveries 0")
    expect(io.stderr.text().endsWith("\r\u001b[2K")).toBe(true)
  })
})

describe("probe: an endpoint that fails gives one line and exit code 2", () => {
  const oneLine = (run: { stderr: string }) => expect(run.stderr.split("\n")).toHaveLength(2)

  it("connection refused", async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const { port } = blocker.address() as AddressInfo
    await new Promise<void>((resolve) => blocker.close(() => resolve()))
    const run = await probe(["--base-url", `http://127.0.0.1:${port}/v1`, "--model", "m"])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe("")
    expect(run.stderr).toBe(
      `tool-rescue probe: connection refused: nothing is listening at http://127.0.0.1:${port}/v1 (is the server running, on that port?)\n`,
    )
  })

  it('a port fetch refuses (the Fetch standard\'s blocked ports): says so, not "fetch failed"', async () => {
    const run = await probe(["--base-url", "http://127.0.0.1:6000/v1", "--model", "m"])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      "tool-rescue probe: fetch refuses to connect to the port of http://127.0.0.1:6000/v1 (a port on the Fetch standard's blocked list): serve on another port\n",
    )
  })

  it("401", async () => {
    const server = await replay(() => ({ httpError: { status: 401, message: "Invalid API key" } }))
    const run = await probe(["--base-url", server.url, "--model", "m", "--api-key", "wrong"])
    expect(run.code).toBe(2)
    oneLine(run)
    expect(run.stderr).toBe(
      `tool-rescue probe: 401 Unauthorized from ${server.url}: check --api-key or $OPENAI_API_KEY (server said: Invalid API key)\n`,
    )
    expect(server.requests[0]?.headers.authorization).toBe("Bearer wrong")
  })

  it("a timeout", async () => {
    const server = await replay(() => ({ latencyMs: 5_000, content: "late" }))
    const run = await probe(["--base-url", server.url, "--model", "m", "--timeout", "1"])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `tool-rescue probe: timed out: no answer from ${server.url} within 1 s (raise --timeout for slow models)\n`,
    )
  })

  it("a wrong base URL (404)", async () => {
    const server = await replay(() => call("read_file"))
    const base = server.url.replace(/\/v1$/, "")
    const run = await probe(["--base-url", base, "--model", "m"])
    expect(run.code).toBe(2)
    oneLine(run)
    expect(run.stderr).toMatch(
      new RegExp(
        `^tool-rescue probe: 404 Not Found from ${base}/chat/completions: is the base URL right \\(it usually ends in /v1\\)`,
      ),
    )
  })

  it("a server that is not OpenAI-compatible (HTML, or JSON of another shape)", async () => {
    for (const [type, body] of [
      ["text/html", "<html><body>It works!</body></html>"],
      ["application/json", '{"status":"ok"}'],
    ] as const) {
      const web = createServer((_request, response) => {
        response.writeHead(200, { "content-type": type })
        response.end(body)
      })
      await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve))
      servers.push({ close: () => new Promise<void>((resolve) => web.close(() => resolve())) })
      const url = `http://127.0.0.1:${(web.address() as AddressInfo).port}/v1`
      for (const stream of [[], ["--stream"]]) {
        const run = await probe(["--base-url", url, "--model", "m", ...stream])
        expect(run.code, `${type} ${stream.join("")}`).toBe(2)
        oneLine(run)
        expect(run.stderr).toMatch(
          new RegExp(`^tool-rescue probe: ${url} does not answer like the OpenAI Chat Completions API: `),
        )
      }
      web.closeAllConnections()
    }
  })
})
