/**
 * Recipe: the OpenAI Agents SDK. `@openai/agents` takes an injected `openai` client; wrapping it
 * with `withToolCallRecovery` from `@tool-rescue/openai` recovers leaked tool calls inside the
 * SDK's own agent loop (`run`), over Chat Completions and the Responses API. Everything goes over
 * real HTTP to the replay server.
 */
import {
  Agent,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  run,
  setTracingDisabled,
  tool,
} from "@openai/agents"
import { isToolCallRecoveryError, type RecoveryEvent, withToolCallRecovery } from "@tool-rescue/openai"
import { type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import OpenAI from "openai"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { agentScript, answer, LEAK, retrying } from "./support/script.ts"

// No trace export: the tests reach only the replay server.
beforeAll(() => setTracingDisabled(true))

const servers: ReplayServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const apis = [
  {
    name: "chat completions",
    model: (client: OpenAI) => new OpenAIChatCompletionsModel(client, "qwen3-coder"),
  },
  { name: "responses", model: (client: OpenAI) => new OpenAIResponsesModel(client, "qwen3-coder") },
] as const

async function agentsSdk(api: (typeof apis)[number], options: { leakAfterTool?: boolean } = {}) {
  const server = await startReplayServer({ script: agentScript(options) })
  servers.push(server)
  const runs: string[] = []
  const events: RecoveryEvent[] = []
  // The recipe: wrap the client the SDK's model gets.
  const client = withToolCallRecovery(new OpenAI({ baseURL: server.url, apiKey: "local", maxRetries: 0 }), {
    onEvent: (event) => events.push(event),
  })
  const grep = tool({
    name: "GrepTool",
    description: "Searches files for a pattern",
    parameters: z.object({ pattern: z.string() }),
    execute: async ({ pattern }) => {
      runs.push(pattern)
      return "services/base.py:3: class BaseService:"
    },
  })
  const agent = new Agent({
    name: "coder",
    instructions: "You are a coding agent.",
    model: api.model(client),
    tools: [grep],
  })
  return { agent, server, runs, events }
}

describe.each(apis)("OpenAI Agents SDK over $name with a client wrapped by withToolCallRecovery", (api) => {
  it("run: a leak is recovered, the tool runs once, the final output is the answer", async () => {
    const { agent, server, runs, events } = await agentsSdk(api)
    const result = await run(agent, "Where is BaseService?")
    expect(runs).toEqual(["class BaseService"])
    expect(result.finalOutput).toBe(answer)
    expect(JSON.stringify(result.history)).not.toContain("<function=")
    expect(server.requests).toHaveLength(3)
    expect(events.map((event) => event.type)).toContain("recovery-succeeded")
  })

  it("run with stream: no streamed text carries markup", async () => {
    const { agent, runs } = await agentsSdk(api)
    const result = await run(agent, "Where is BaseService?", { stream: true })
    let shown = ""
    for await (const text of result.toTextStream()) shown += text
    await result.completed
    expect(shown).not.toContain("<")
    expect(shown).toContain(LEAK.safePrefix.trim())
    expect(shown).toContain(answer)
    expect(runs).toEqual(["class BaseService"])
  })

  it("a second leak in the same run rejects with ToolCallRecoveryError repeated-markup", async () => {
    const { agent, runs, server } = await agentsSdk(api, { leakAfterTool: true })
    const error = await run(agent, "Where is BaseService?").catch((e: unknown) => e)
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect(error).toMatchObject({ code: "repeated-markup" })
    expect(runs).toEqual(["class BaseService"])
    expect(server.requests.filter(retrying)).toHaveLength(1)
  })
})
