import Anthropic from "@anthropic-ai/sdk"
import OpenAI from "openai"
import { Counter, Registry } from "prom-client"
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, QWEN_LEAK, READ_FILE_TOOL, startHarness } from "./support/harness.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const user = { role: "user" as const, content: "Show me a.ts" }
const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output })

describe("one recovery per agent turn, across the turn's requests (the history carries the mark)", () => {
  it("chat: a recovered call's id is marked; a second leak later in the turn is repeated-markup with no retry; a new user turn starts afresh", async () => {
    harness = await startHarness([
      { content: QWEN_LEAK, usage: usage(10, 5) },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }], usage: usage(12, 7) },
      { content: QWEN_LEAK },
      { content: QWEN_LEAK },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"b.ts"}' }] },
    ])
    const client = new OpenAI({ baseURL: harness.proxy.url, apiKey: "k", maxRetries: 0 })
    const first = await client.chat.completions.create({
      model: "m",
      messages: [user],
      tools: [READ_FILE_TOOL],
    })
    const call = first.choices[0]!.message.tool_calls![0]!
    expect(call.id).toBe("call_1_0-retry1")
    // The turn's usage is the sum of both attempts.
    expect(first.usage).toMatchObject({ prompt_tokens: 22, completion_tokens: 12, total_tokens: 34 })

    const history = [
      user,
      first.choices[0]!.message,
      { role: "tool" as const, tool_call_id: call.id, content: "export {}" },
    ]
    const second = await client.chat.completions
      .create({ model: "m", messages: history, tools: [READ_FILE_TOOL] })
      .catch((error: unknown) => error)
    expect((second as InstanceType<typeof OpenAI.APIError>).code).toBe("repeated-markup")
    expect(harness.turns()).toBe(3)

    const next = await client.chat.completions.create({
      model: "m",
      messages: [...history, { role: "assistant", content: "Done." }, { role: "user", content: "Now b.ts" }],
      tools: [READ_FILE_TOOL],
    })
    expect(next.choices[0]!.message.tool_calls?.[0]?.id).toBe("call_4_0-retry1")
    expect(harness.turns()).toBe(5)
  })

  it("chat streaming: the usage chunk of a recovered stream is the sum of both attempts", async () => {
    harness = await startHarness([
      { content: QWEN_LEAK, usage: usage(10, 5), chunkSize: 8 },
      { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }], usage: usage(12, 7) },
    ])
    const client = new OpenAI({ baseURL: harness.proxy.url, apiKey: "k", maxRetries: 0 })
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [user],
      tools: [READ_FILE_TOOL],
      stream: true,
      stream_options: { include_usage: true },
    })
    let total: OpenAI.CompletionUsage | undefined
    const ids: string[] = []
    for await (const chunk of stream) {
      if (chunk.usage) total = chunk.usage
      for (const c of chunk.choices[0]?.delta.tool_calls ?? []) if (c.id) ids.push(c.id)
    }
    expect(total).toMatchObject({ prompt_tokens: 22, completion_tokens: 12 })
    expect(ids).toEqual(["call_1_0-retry1"])
  })

  it("Anthropic: usage is summed; a tool_result for a marked tool_use keeps the turn's budget spent", async () => {
    harness = await startHarness([
      { content: QWEN_LEAK.replace("read_file", "Read"), usage: usage(10, 5) },
      { toolCalls: [{ name: "Read", arguments: "{}" }], usage: usage(12, 7) },
      { content: QWEN_LEAK.replace("read_file", "Read") },
    ])
    const client = new Anthropic({
      baseURL: harness.proxy.url.replace(/\/v1$/, ""),
      apiKey: "k",
      maxRetries: 0,
    })
    const tools = [{ name: "Read", input_schema: { type: "object" as const } }]
    const first = await client.messages.create({ model: "m", max_tokens: 100, messages: [user], tools })
    const use = first.content.find((block) => block.type === "tool_use")!
    expect(use.type === "tool_use" && use.id).toBe("call_1_0-retry1")
    expect(first.usage).toMatchObject({ input_tokens: 22, output_tokens: 12 })
    const second = await client.messages
      .create({
        model: "m",
        max_tokens: 100,
        tools,
        messages: [
          user,
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: use.type === "tool_use" ? use.id : "", content: "ok" },
            ],
          },
        ],
      })
      .catch((error: unknown) => error)
    expect((second as InstanceType<typeof Anthropic.APIError>).status).toBe(422)
    expect(harness.turns()).toBe(3)
  })

  it("/metrics counts the leak by format and outcome, and the retry", async () => {
    harness = await startHarness([{ content: QWEN_LEAK }, { content: "ok" }])
    await fetch(`${harness.proxy.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [user], tools: [READ_FILE_TOOL] }),
    }).then((r) => r.text())
    const metrics = await (await fetch(`${harness.proxy.url.replace(/\/v1$/, "")}/metrics`)).text()
    expect(metrics).toContain(
      'tool_rescue_proxy_requests_total{protocol="chat",mode="recovered",model="m"} 1',
    )
    expect(metrics).toMatch(
      /tool_rescue_proxy_leaks_total\{protocol="chat",format="[a-z0-9-]+",outcome="recovered",model="m"\} 1/,
    )
    expect(metrics).toContain('tool_rescue_proxy_retries_total{protocol="chat"} 1')
    // One observation per phase: the request's own processing, and the retry.
    expect(metrics).toContain(
      'tool_rescue_proxy_added_latency_seconds_count{protocol="chat",phase="request"} 1',
    )
    expect(metrics).toContain(
      'tool_rescue_proxy_added_latency_seconds_count{protocol="chat",phase="recovery"} 1',
    )
  })

  it("serves its metrics from the host's prom-client registry when given one", async () => {
    const registry = new Registry()
    const own = new Counter({ name: "app_jobs_total", help: "The app's own.", registers: [registry] })
    own.inc()
    harness = await startHarness([{ content: "Hello." }], { metricsRegistry: registry })
    await fetch(`${harness.proxy.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [user], tools: [READ_FILE_TOOL] }),
    }).then((r) => r.text())
    const served = await fetch(`${harness.proxy.url.replace(/\/v1$/, "")}/metrics`)
    expect(served.headers.get("content-type")).toBe(registry.contentType)
    const text = await served.text()
    expect(text).toContain("app_jobs_total 1")
    expect(await registry.metrics()).toContain(
      'tool_rescue_proxy_requests_total{protocol="chat",mode="recovered",model="m"} 1',
    )
  })
})
