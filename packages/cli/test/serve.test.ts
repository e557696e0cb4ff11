import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startReplayServer } from "@tool-rescue/testing"
import { describe, expect, it } from "vitest"
import { main } from "../src/main.ts"
import { testIo } from "./support.ts"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
const LEAK =
  "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"

/** Starts `tool-rescue serve` as a user would and resolves with the URL it prints. */
function serve(args: readonly string[], env: Record<string, string> = {}) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ["--conditions=@tool-rescue/source", bin, "serve", ...args],
    { env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["pipe", "pipe", "pipe"] },
  )
  let stdout = ""
  let stderr = ""
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      const found = /listening on (\S+)/.exec(stdout)
      if (found !== null) resolve(found[1]!)
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
  })
  return { child, url, exited, output: () => ({ stdout, stderr }) }
}

describe("tool-rescue serve", () => {
  it("prints its URL on 127.0.0.1, recovers a leak, logs it to --failed-log, and exits 0 on SIGTERM", async () => {
    const upstream = await startReplayServer({
      script: [{ content: LEAK }, { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] }],
    })
    const dir = await mkdtemp(join(tmpdir(), "tool-rescue-serve-"))
    const log = join(dir, "failed.jsonl")
    const run = serve(["--upstream", upstream.url, "--port", "0", "--failed-log", log])
    try {
      const url = await run.url
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
      const response = await fetch(`${url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-do-not-log" },
        body: JSON.stringify({
          model: "m",
          messages: [{ role: "user", content: "read a.ts" }],
          tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
        }),
      })
      const completion = (await response.json()) as {
        choices: Array<{ message: { tool_calls?: Array<{ function: { name: string } }> } }>
      }
      expect(completion.choices[0]!.message.tool_calls?.[0]?.function.name).toBe("read_file")
      // Besides the start-up's GET /v1/models: the leak and its retry.
      expect(upstream.requests.filter((r) => r.api !== "models")).toHaveLength(2)
      const lines = (await readFile(log, "utf8")).trim().split("\n")
      expect(lines).toHaveLength(1)
      expect(JSON.parse(lines[0]!)).toMatchObject({
        round: 0,
        text: LEAK,
        outcome: "retried",
        model: "m",
        tools: ["read_file"],
      })
      expect(lines[0]).not.toContain("sk-do-not-log")
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)
      expect(run.output().stdout).not.toContain("sk-do-not-log")
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("takes the upstream from TOOL_RESCUE_UPSTREAM", async () => {
    const upstream = await startReplayServer({ script: [] })
    const run = serve(["--port", "0"], { TOOL_RESCUE_UPSTREAM: upstream.url })
    try {
      const url = await run.url
      const models = (await (await fetch(`${url}/models`)).json()) as { data: Array<{ id: string }> }
      expect(models.data.map((m) => m.id)).toEqual(["replay-model"])
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
    }
  })

  it("bounds an upstream that stalls after its headers (TOOL_RESCUE_UPSTREAM_IDLE_TIMEOUT): a 504 upstream-timeout", async () => {
    const upstream = await startReplayServer({
      script: [{ content: "never whole", interrupt: { kind: "stall", afterChunks: 0 } }],
    })
    const run = serve(["--port", "0", "--upstream", upstream.url], { TOOL_RESCUE_UPSTREAM_IDLE_TIMEOUT: "1" })
    try {
      const url = await run.url
      const response = await fetch(`${url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          messages: [{ role: "user", content: "read a.ts" }],
          tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
        }),
      })
      expect(response.status).toBe(504)
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("upstream-timeout")
      // The proxy aborted its upstream request (the replay server sees the close a moment later).
      const turn = upstream.requests.find((r) => r.api === "chat")!
      for (let i = 0; i < 400 && !turn.closedByClient; i++)
        await new Promise((resolve) => setTimeout(resolve, 5))
      expect(turn.closedByClient).toBe(true)
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)
      expect(run.output().stderr).not.toContain("TypeError")
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
    }
  })

  it("refuses an idle timeout that is not a whole number of seconds, with exit code 2", async () => {
    const io = testIo()
    expect(
      await main(["serve", "--upstream", "http://127.0.0.1:1/v1", "--upstream-idle-timeout", "0.5"], io),
    ).toBe(2)
    expect(io.stderr.text()).toContain("--upstream-idle-timeout must be an integer from 1 to 86400")
  })

  it("refuses to start without an upstream, or with one that is not http(s), with exit code 2", async () => {
    const io = testIo()
    expect(await main(["serve"], io)).toBe(2)
    expect(io.stderr.text()).toContain("--upstream is required")
    const second = testIo()
    expect(await main(["serve", "--upstream", "file:///etc/passwd"], second)).toBe(2)
    expect(second.stderr.text()).toContain("must be http(s)")
  })
})
