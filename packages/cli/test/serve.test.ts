import { mkdtemp, readFile, rm } from "node:fs/promises"
import { request as httpRequest, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startReplayServer } from "@tool-rescue/testing"
import { describe, expect, it } from "vitest"
import { main } from "../src/main.ts"
import { serve, testIo } from "./support.ts"

const LEAK =
  "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"

describe("tool-rescue serve", () => {
  it("prints its URL on 127.0.0.1, recovers a leak, logs it to --failed-log, and exits 0 on SIGTERM", async () => {
    const upstream = await startReplayServer({
      script: [{ content: LEAK }, { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] }],
    })
    const dir = await mkdtemp(join(tmpdir(), "tool-rescue-serve-"))
    const log = join(dir, "failed.jsonl")
    const run = serve(["--upstream", upstream.url, "--failed-log", log])
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
    const run = serve([], { TOOL_RESCUE_UPSTREAM: upstream.url })
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
    const run = serve(["--upstream", upstream.url], { TOOL_RESCUE_UPSTREAM_IDLE_TIMEOUT: "1" })
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

  it("cuts a request body that goes silent after --request-idle-timeout with a 408, nothing sent upstream", async () => {
    const upstream = await startReplayServer({ script: [] })
    const run = serve(["--upstream", upstream.url, "--request-idle-timeout", "1"])
    try {
      const url = await run.url
      const status = await new Promise<number>((resolve, reject) => {
        const sent = request(
          `${url}/chat/completions`,
          { method: "POST", headers: { "content-type": "application/json", "content-length": "1000" } },
          (response) => {
            response.resume()
            response.once("end", () => resolve(response.statusCode ?? 0))
          },
        )
        sent.once("error", reject)
        sent.write('{"model":') // then silence
      })
      expect(status).toBe(408)
      expect(upstream.requests.filter((r) => r.api !== "models")).toHaveLength(0)
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)
      expect(run.output().stderr).not.toContain("Error")
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

  it("serves only the Host names it knows (--allowed-host adds one), and an --api-key client, without forwarding the key", async () => {
    const upstream = await startReplayServer({ script: () => ({ content: "ok" }) })
    const run = serve(
      ["--upstream", upstream.url, "--allowed-host", "proxy.lan", "--allowed-host", ".corp.example"],
      {
        TOOL_RESCUE_API_KEY: "shared-key",
      },
    )
    try {
      const url = new URL(await run.url)
      const ask = (host: string, key: string | undefined) =>
        rawPost(url, host, {
          ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        })
      expect(await ask("evil.example", "shared-key")).toMatchObject({ status: 403 })
      expect(await ask("proxy.lan", undefined)).toMatchObject({ status: 401 })
      expect(await ask("proxy.lan", "shared-key")).toMatchObject({ status: 200 })
      expect(await ask("x.corp.example", "shared-key")).toMatchObject({ status: 200 })
      expect(await ask(`localhost:${url.port}`, "shared-key")).toMatchObject({ status: 200 })
      const turns = upstream.requests.filter((r) => r.api !== "models")
      expect(turns).toHaveLength(3)
      expect(turns.map((r) => r.headers.authorization)).toEqual([undefined, undefined, undefined])
      // Loopback: no warning.
      expect(run.output().stderr).not.toContain("warning")
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
    }
  })

  it("warns on stderr at start when bound to a non-loopback address, naming the risk", async () => {
    const upstream = await startReplayServer({ script: [] })
    const run = serve(["--upstream", upstream.url, "--host", "0.0.0.0"])
    try {
      await run.url
      // Everything it printed at start is in once it has exited.
      run.child.kill("SIGTERM")
      expect(await run.exited).toBe(0)
      expect(run.output().stderr).toContain("warning: listening on 0.0.0.0")
      expect(run.output().stderr).toContain("anyone who can reach port")
      expect(run.output().stderr).toContain("--api-key")
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
    }
  })

  it("sends the credentials of --upstream as Basic auth", async () => {
    const upstream = await startReplayServer({ script: () => ({ content: "ok" }) })
    const run = serve(["--upstream", upstream.url.replace("http://", "http://me:s3cret@")])
    try {
      const url = await run.url
      expect(run.output().stdout).not.toContain("s3cret")
      const models = await fetch(`${url}/models`)
      expect(models.status).toBe(200)
      expect(upstream.requests[0]!.headers.authorization).toBe(
        `Basic ${Buffer.from("me:s3cret").toString("base64")}`,
      )
    } finally {
      run.child.kill("SIGKILL")
      await upstream.close()
    }
  })

  it("refuses an empty --api-key, or upstream credentials it cannot decode, with exit code 2", async () => {
    const io = testIo()
    expect(await main(["serve", "--upstream", "http://127.0.0.1:1/v1", "--api-key", " "], io)).toBe(2)
    expect(io.stderr.text()).toContain("--api-key must not be empty")
    const second = testIo()
    expect(await main(["serve", "--upstream", "http://me:%E0@127.0.0.1:1/v1"], second)).toBe(2)
    expect(second.stderr.text()).toContain("user:password that is not valid percent-encoding")
  })
})

/** A chat request through node:http with `host` as its Host header (fetch sets its own). */
function rawPost(url: URL, host: string, headers: Record<string, string>) {
  return new Promise<{ status: number }>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: "/v1/chat/completions",
        method: "POST",
        headers: { "content-type": "application/json", host, ...headers },
      },
      (res) => {
        res.resume()
        res.on("end", () => resolve({ status: res.statusCode ?? 0 }))
      },
    )
    req.on("error", reject)
    req.end(
      JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
      }),
    )
  })
}
