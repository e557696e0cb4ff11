import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages"
import { tool } from "@langchain/core/tools"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import type { ReplayRequest, ReplayStep } from "@tool-rescue/testing"
import { type AgentMiddleware, createAgent, modelRetryMiddleware } from "langchain"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { isToolCallRecoveryError, toolCallRecoveryMiddleware, withToolCallRecovery } from "../src/index.ts"
import { chatOpenAI, leak, replay, sentText } from "./support/harness.ts"

const sample = leak("L8")
const safePrefix = sample.text.slice(0, sample.text.indexOf("<tool_call>"))
const answer = "BaseService is defined in services/base.py."

function grepTool(runs: string[]) {
  return tool(
    async ({ pattern }) => {
      runs.push(pattern)
      return "services/base.py:3: class BaseService:"
    },
    { name: "GrepTool", description: "Searches files", schema: z.object({ pattern: z.string() }) },
  )
}

const lastRole = (request: ReplayRequest) => request.body?.messages?.at(-1)?.role
const retrying = (request: ReplayRequest) => isRetryRequest(sentText(request.body))

/** Leaks on a fresh question, calls the tool when asked to retry, answers after the tool result. */
function agentScript(options: { leakAfterTool?: boolean } = {}) {
  return (request: ReplayRequest): ReplayStep => {
    if (lastRole(request) === "tool")
      return options.leakAfterTool ? { content: sample.text } : { content: answer }
    if (retrying(request))
      return { toolCalls: [{ name: "GrepTool", arguments: '{"pattern":"class BaseService"}' }] }
    return { content: sample.text, chunkSize: 2 }
  }
}

const question = { messages: [{ role: "user", content: "Where is BaseService?" }] }

function contentOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content)
}

/** An agent with the recovery middleware and a recording GrepTool, its model on a replay of `script`. */
async function recoveringAgent(
  script: (request: ReplayRequest) => ReplayStep,
  fields: Parameters<typeof chatOpenAI>[1] = {},
) {
  const server = await replay(script)
  const runs: string[] = []
  const agent = createAgent({
    model: chatOpenAI(server, fields),
    tools: [grepTool(runs)],
    middleware: [toolCallRecoveryMiddleware()],
  })
  return { server, runs, agent }
}

describe("createAgent without tool-rescue (the problem, as the README's comparison states it)", () => {
  it("takes the leak for the final answer: the tool never runs and the markup is the reply", async () => {
    const server = await replay(agentScript())
    const runs: string[] = []
    const agent = createAgent({ model: chatOpenAI(server), tools: [grepTool(runs)] })
    const { messages } = await agent.invoke(question)
    expect(runs).toEqual([])
    expect(contentOf(messages.at(-1)!)).toBe(sample.text)
    expect(server.requests).toHaveLength(1)
  })
})

describe("createAgent with toolCallRecoveryMiddleware", () => {
  it("invoke: the tool runs once, the final message is the answer, no markup in any message", async () => {
    const { server, runs, agent } = await recoveringAgent(agentScript())
    const { messages } = await agent.invoke(question)

    expect(runs).toEqual(["class BaseService"])
    expect(messages.at(-1)?.content).toBe(answer)
    expect(messages.map((message) => message.type)).toEqual(["human", "ai", "tool", "ai"])
    for (const message of messages) expect(contentOf(message)).not.toContain("<function=")
    expect(messages.filter((message) => ToolMessage.isInstance(message))).toHaveLength(1)
    expect(server.requests).toHaveLength(3)
    // The tool result's request carries no trace of the malformed response.
    expect(sentText(server.requests[2]!.body)).not.toContain("<tool_call>")
  })

  it("stream (messages mode): no streamed chunk carries markup, the safe prose is shown once", async () => {
    const { runs, agent } = await recoveringAgent(agentScript(), { streaming: true })
    const texts: string[] = []
    for await (const [chunk] of await agent.stream(question, { streamMode: "messages" })) {
      texts.push(contentOf(chunk))
    }
    const shown = texts.join("")
    expect(shown).not.toContain("<")
    expect(shown).toContain(safePrefix.trim())
    expect(shown.split(safePrefix.trim())).toHaveLength(2)
    expect(shown).toContain(answer)
    expect(runs).toEqual(["class BaseService"])
  })

  it("stream (messages mode) on a model without streaming: true, and streamEvents v2: no chunk carries markup", async () => {
    const { runs, agent } = await recoveringAgent(agentScript())
    const texts: string[] = []
    for await (const [chunk] of await agent.stream(question, { streamMode: "messages" }))
      texts.push(contentOf(chunk))
    expect(texts.join("")).not.toContain("<")
    expect(texts.join("")).toContain(answer)

    const streamed: string[] = []
    for await (const event of agent.streamEvents(question, { version: "v2" })) {
      if (event.event === "on_chat_model_stream") streamed.push(contentOf(event.data.chunk as BaseMessage))
    }
    expect(streamed.join("")).not.toContain("<")
    expect(streamed.join("")).toContain(safePrefix.trim())
    expect(runs).toEqual(["class BaseService", "class BaseService"])
  })

  it("a model that leaks twice: the agent's rejection passes isToolCallRecoveryError, code repeated-markup", async () => {
    const { server, runs, agent } = await recoveringAgent(() => ({ content: sample.text }))
    const rejection = await agent.invoke(question).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(rejection)).toBe(true)
    expect(isToolCallRecoveryError(rejection) && rejection.code).toBe("repeated-markup")
    expect(isToolCallRecoveryError(rejection) && rejection.rounds).toBe(2)
    expect(runs).toEqual([])
    expect(server.requests).toHaveLength(2)
  })

  it("a second leak in the same invocation rejects with repeated-markup; the next invocation has a fresh budget", async () => {
    const { server, runs, agent } = await recoveringAgent(agentScript({ leakAfterTool: true }))
    const error = await agent.invoke(question).catch((e: unknown) => e)
    // createAgent wraps every error a middleware throws in its MiddlewareError, with `cause`:
    // the guard recognises the wrapper and gives it ours' fields.
    expect(error).toMatchObject({ name: "ToolCallRecoveryError" })
    expect(isToolCallRecoveryError(error)).toBe(true)
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(isToolCallRecoveryError((error as Error).cause)).toBe(true)
    expect((error as Error).message).toContain("2 of 2 attempts")
    expect(runs).toEqual(["class BaseService"])
    expect(server.requests).toHaveLength(3)

    // A new invocation: its first leak is recovered again.
    await agent.invoke(question).catch(() => undefined)
    expect(server.requests.filter(retrying)).toHaveLength(2)
  })

  it("a model wrapped by withToolCallRecovery works as the agent's model too", async () => {
    const server = await replay(agentScript())
    const runs: string[] = []
    const agent = createAgent({ model: withToolCallRecovery(chatOpenAI(server)), tools: [grepTool(runs)] })
    const { messages } = await agent.invoke(question)
    expect(runs).toEqual(["class BaseService"])
    expect(AIMessage.isInstance(messages.at(-1)) && messages.at(-1)?.content).toBe(answer)
  })
})

describe("under LangChain's modelRetryMiddleware (it retries every error not marked otherwise)", () => {
  // Outside ours, it re-ran the whole model call on our error or on the retry's provider error:
  // a fresh first request, a fresh budget, each time.
  async function retriedAgent(script: (request: ReplayRequest) => ReplayStep, asModel = false) {
    const server = await replay(script)
    const runs: string[] = []
    const started: number[] = []
    const options = { onEvent: (e: RecoveryEvent) => e.type === "recovery-started" && started.push(1) }
    // Its declared type fails `exactOptionalPropertyTypes` (its context schema), not its use.
    const retry = modelRetryMiddleware({
      maxRetries: 2,
      initialDelayMs: 0,
      jitter: false,
      onFailure: "error",
    }) as unknown as AgentMiddleware
    const agent = createAgent({
      model: asModel ? withToolCallRecovery(chatOpenAI(server), options) : chatOpenAI(server),
      tools: [grepTool(runs)],
      middleware: asModel ? [retry] : [retry, toolCallRecoveryMiddleware(options)],
    })
    const error = await agent.invoke(question).catch((e: unknown) => e)
    return { server, runs, started, error }
  }

  it("a model that leaks twice: one recovery, two requests, repeated-markup", async () => {
    const { server, runs, started, error } = await retriedAgent(() => ({ content: sample.text }))
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(server.requests).toHaveLength(2)
    expect(started).toHaveLength(1)
    expect(runs).toEqual([])
  })

  it("withToolCallRecovery as the agent's model: our error and the retry's provider error are marked not retryable", async () => {
    const leaking = await retriedAgent(() => ({ content: sample.text }), true)
    expect(isToolCallRecoveryError(leaking.error) && leaking.error.code).toBe("repeated-markup")
    expect(leaking.server.requests).toHaveLength(2)
    expect(leaking.started).toHaveLength(1)
    const failing = await retriedAgent(
      (request) =>
        retrying(request) ? { httpError: { status: 500, message: "boom" } } : { content: sample.text },
      true,
    )
    expect(String(failing.error)).toContain("boom")
    expect(failing.server.requests).toHaveLength(2)
    expect(failing.started).toHaveLength(1)
  })

  it("a retry that fails at the provider keeps its budget spent: a re-run sends the question again, then repeated-markup", async () => {
    const { server, runs, started, error } = await retriedAgent((request) =>
      retrying(request) ? { httpError: { status: 500, message: "boom" } } : { content: sample.text },
    )
    // The leak, its retry (HTTP 500), the re-run's leak: no second retry, and the re-run after
    // that gets the same error without a request (as the proxy answers a resent turn).
    expect(server.requests.map(retrying)).toEqual([false, true, false])
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect(started).toHaveLength(1)
    expect(runs).toEqual([])
  })
})

describe("an agent invoked again with the same input after repeated-markup", () => {
  it("gets the same error with no request (the turn's budget is spent); a new question is a new turn", async () => {
    const { server, runs, agent } = await recoveringAgent(() => ({ content: sample.text }))
    const first = await agent.invoke(question).catch((e: unknown) => e)
    const again = await agent.invoke(question).catch((e: unknown) => e)
    expect(isToolCallRecoveryError(first) && first.code).toBe("repeated-markup")
    expect(isToolCallRecoveryError(again) && again.code).toBe("repeated-markup")
    expect(server.requests.map(retrying)).toEqual([false, true])
    await agent
      .invoke({ messages: [{ role: "user", content: "Where is BaseClient?" }] })
      .catch(() => undefined)
    expect(server.requests.map(retrying)).toEqual([false, true, false, true])
    expect(runs).toEqual([])
  })
})
