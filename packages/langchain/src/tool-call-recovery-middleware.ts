import type { BaseMessage } from "@langchain/core/messages"
import { resolveRecoveryOptions } from "@tool-rescue/recovery"
import type { AgentMiddleware } from "langchain"
import type { ToolCallRecoveryOptions } from "./options.ts"
import { createTurnBudget, type TurnBudget } from "./turn-budget.ts"
import { isChatModel, unwrapChatModel, wrapChatModel } from "./with-tool-call-recovery.ts"

/** LangChain's middleware brand (`Symbol.for`, so no runtime import of `langchain` is needed). */
const MIDDLEWARE_BRAND: unique symbol = Symbol.for("AgentMiddleware") as never

/** Turns whose invocation ended without `afterAgent` (it threw) are forgotten past this many. */
const MAX_OPEN_TURNS = 1024

/**
 * Tool-call recovery for agents made with `createAgent` (langchain v1), on the model the agent
 * already has: `createAgent({ model, tools, middleware: [toolCallRecoveryMiddleware()] })`.
 * Its `wrapModelCall` runs each model call through the same recovery as
 * {@link withToolCallRecovery} — markup off the screen and out of the history, one retry that
 * asks for the structured format, usage summed, streamed tokens clean — with one budget for the
 * whole agent invocation: at most `maxRecoveries` (default 1) corrected responses across all its
 * model calls; a second malformed response rejects the invocation with
 * {@link ToolCallRecoveryError} `"repeated-markup"`. A tool the model called through a recovered
 * response runs once, as any tool call.
 *
 * @example
 * ```ts
 * import { ChatOpenAI } from "@langchain/openai"
 * import { createAgent, tool } from "langchain"
 * import { z } from "zod"
 * import { toolCallRecoveryMiddleware } from "@tool-rescue/langchain"
 *
 * const readFile = tool(async ({ path }) => `contents of ${path}`, {
 *   name: "read_file",
 *   description: "Reads a file",
 *   schema: z.object({ path: z.string() }),
 * })
 * const agent = createAgent({
 *   model: new ChatOpenAI({ model: "qwen3-coder:30b", apiKey: "ollama", configuration: { baseURL: "http://127.0.0.1:11434/v1" } }),
 *   tools: [readFile],
 *   middleware: [toolCallRecoveryMiddleware({ onEvent: (event) => console.debug(event.type) })],
 * })
 * const { messages } = await agent.invoke({ messages: [{ role: "user", content: "Read a.ts" }] })
 * ```
 */
export function toolCallRecoveryMiddleware(options: ToolCallRecoveryOptions = {}): AgentMiddleware {
  const { maxRecoveries } = resolveRecoveryOptions(options)
  // Keyed by the id of the invocation's last user message (LangGraph gives every message an id).
  const turns = new Map<string, TurnBudget>()
  const budgetOf = (messages: readonly BaseMessage[]): TurnBudget => {
    const key = turnKey(messages)
    let budget = turns.get(key)
    if (budget === undefined) {
      budget = createTurnBudget(maxRecoveries)
      turns.set(key, budget)
      if (turns.size > MAX_OPEN_TURNS) turns.delete(turns.keys().next().value as string)
    }
    return budget
  }
  const middleware: AgentMiddleware & { readonly [MIDDLEWARE_BRAND]: true } = {
    [MIDDLEWARE_BRAND]: true,
    name: "ToolCallRecoveryMiddleware",
    beforeAgent: (state) => {
      // A new invocation is a new turn, even when it repeats an earlier user message.
      turns.delete(turnKey(state.messages))
      return undefined
    },
    afterAgent: (state) => {
      turns.delete(turnKey(state.messages))
      return undefined
    },
    wrapModelCall: (request, handler) => {
      if (!isChatModel(request.model)) return handler(request)
      const budget = budgetOf(request.state.messages)
      const model = wrapChatModel(unwrapChatModel(request.model), { options, budget: () => budget })
      return handler({ ...request, model })
    },
  }
  return middleware
}

function turnKey(messages: readonly BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]
    if (message?.type === "human") return message.id ?? `#${i}`
  }
  return ""
}
