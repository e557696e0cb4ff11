import { createTurnMemory, resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
import type { AgentMiddleware } from "langchain"
import type { ToolCallRecoveryOptions } from "./options.ts"
import { isChatModel, unwrapChatModel, wrapChatModel } from "./with-tool-call-recovery.ts"

/** LangChain's middleware brand (`Symbol.for`, so no runtime import of `langchain` is needed). */
const MIDDLEWARE_BRAND: unique symbol = Symbol.for("AgentMiddleware") as never

/**
 * Tool-call recovery for agents made with `createAgent` (langchain v1), on the model the agent
 * already has: `createAgent({ model, tools, middleware: [toolCallRecoveryMiddleware()] })`.
 * Its `wrapModelCall` runs each model call through the same recovery as
 * {@link withToolCallRecovery} — markup off the screen and out of the history, one retry that
 * asks for the structured format, usage summed, streamed tokens clean — with one budget for the
 * agent invocation's user turn: at most `maxRecoveries` (default 1) corrected responses across
 * all its model calls; a second malformed response rejects the invocation with
 * {@link ToolCallRecoveryError} `"repeated-markup"` (`createAgent` wraps it in its
 * `MiddlewareError`, named as ours with ours as `cause`: `isToolCallRecoveryError` is true on it
 * and gives it ours' `code`, `rounds` and `markup`). A tool the model called through a
 * recovered response runs once, as any tool call.
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
  const resolved = resolveRecoveryOptions(options)
  // A middleware outside this one may run the same model call again (`modelRetryMiddleware`
  // retries every error not marked otherwise, and `createAgent` wraps ours in a `MiddlewareError`
  // that carries no mark), and a caller may invoke the agent again with the same input: each run
  // would be a fresh first request with a fresh budget. The memory of turns by their content
  // (messages and tools) gives a re-run the error its call ended with, or the budget it spent.
  const memory = createTurnMemory()
  const middleware: AgentMiddleware & { readonly [MIDDLEWARE_BRAND]: true } = {
    [MIDDLEWARE_BRAND]: true,
    name: "ToolCallRecoveryMiddleware",
    wrapModelCall: async (request, handler) => {
      if (!isChatModel(request.model)) return handler(request)
      const model = wrapChatModel(unwrapChatModel(request.model), { resolved, memory })
      return handler({ ...request, model })
    },
  }
  return middleware
}
