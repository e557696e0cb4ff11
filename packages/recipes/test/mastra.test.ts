/**
 * Recipe: Mastra. A Mastra `Agent` runs on an AI SDK model; wrapping that model with
 * `toolCallRecoveryMiddleware` from `@tool-rescue/ai-sdk` recovers leaked tool calls inside
 * Mastra's own agent loop. Everything goes over real HTTP to the replay server.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { Agent } from "@mastra/core/agent"
import type { MastraModelConfig } from "@mastra/core/llm"
import { createTool } from "@mastra/core/tools"
import { isToolCallRecoveryError, type RecoveryEvent, toolCallRecoveryMiddleware } from "@tool-rescue/ai-sdk"
import { type ReplayServer, startReplayServer } from "@tool-rescue/testing"
import { wrapLanguageModel } from "ai"
import { afterEach, describe, expect, it } from "vitest"
import { z } from "zod"
import { agentScript, answer, LEAK, retrying } from "./support/script.ts"

const servers: ReplayServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function mastraAgent(options: { leakAfterTool?: boolean } = {}) {
  const server = await startReplayServer({ script: agentScript(options) })
  servers.push(server)
  const runs: string[] = []
  const events: RecoveryEvent[] = []
  // The recipe: wrap the AI SDK model the Agent gets.
  const model = wrapLanguageModel({
    model: createOpenAICompatible({ name: "local", baseURL: server.url, apiKey: "local" }).chatModel(
      "qwen3-coder",
    ),
    middleware: toolCallRecoveryMiddleware({ onEvent: (event) => events.push(event) }),
  })
  const grep = createTool({
    id: "GrepTool",
    description: "Searches files for a pattern",
    inputSchema: z.object({ pattern: z.string() }),
    execute: async ({ pattern }) => {
      runs.push(pattern)
      return { match: "services/base.py:3: class BaseService:" }
    },
  })
  const agent = new Agent({
    id: "coder",
    name: "coder",
    instructions: "You are a coding agent.",
    // Mastra 1.71 bundles the types of @ai-sdk/provider 4.0.17, before the AI SDK added the finish
    // reason "interrupted": a model from a newer `ai` 7 needs this cast (the runtime is the same).
    model: model as MastraModelConfig,
    tools: { GrepTool: grep },
  })
  return { agent, server, runs, events }
}

describe("Mastra Agent with an AI SDK model wrapped by toolCallRecoveryMiddleware", () => {
  it("generate: a leak is recovered, the tool runs once, the answer is the final text", async () => {
    const { agent, server, runs, events } = await mastraAgent()
    const result = await agent.generate("Where is BaseService?", { maxSteps: 5 })
    expect(runs).toEqual(["class BaseService"])
    expect(result.text).toContain(answer)
    expect(result.text).not.toContain("<function=")
    expect(server.requests).toHaveLength(3)
    expect(events.map((event) => event.type)).toContain("recovery-succeeded")
  })

  it("stream: no streamed text carries markup", async () => {
    const { agent, runs } = await mastraAgent()
    const stream = await agent.stream("Where is BaseService?", { maxSteps: 5 })
    let shown = ""
    for await (const text of stream.textStream) shown += text
    expect(shown).not.toContain("<")
    expect(shown).toContain(LEAK.safePrefix.trim())
    expect(shown).toContain(answer)
    expect(runs).toEqual(["class BaseService"])
  })

  it("a second leak in the turn rejects generate with ToolCallRecoveryError repeated-markup", async () => {
    const { agent, runs, server } = await mastraAgent({ leakAfterTool: true })
    const error = await agent.generate("Where is BaseService?", { maxSteps: 5 }).catch((e: unknown) => e)
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect(error).toMatchObject({ code: "repeated-markup" })
    expect(runs).toEqual(["class BaseService"])
    // No retry after the second leak: the turn's one recovery was spent.
    expect(server.requests.filter(retrying)).toHaveLength(1)
  })
})
