import { AIMessageChunk } from "@langchain/core/messages"
import { tool } from "@langchain/core/tools"
import { ChatOpenAI } from "@langchain/openai"
import { isToolCallRecoveryError, toolCallRecoveryMiddleware } from "@tool-rescue/langchain"
import { createAgent } from "langchain"
import { z } from "zod"
import type { TurnContext, TurnOutcome } from "./demo-turn.ts"
import { demoSystemPrompt, toolDescriptions } from "./demo-world.ts"

/**
 * One agent turn with LangChain: `createAgent` over `ChatOpenAI` (streaming, pointed at the replay
 * server) with `toolCallRecoveryMiddleware`, streamed in `messages` mode as a chat UI shows it.
 */
export async function runLangChainTurn(context: TurnContext, outcome: TurnOutcome): Promise<void> {
  const run = (name: string) => async (input: unknown) => {
    const result = await context.runTool(name, input)
    if (!result.ok) throw new Error(result.output)
    return result.output
  }
  const agent = createAgent({
    model: new ChatOpenAI({
      model: "replay-model",
      apiKey: "demo",
      maxRetries: 0,
      streaming: true,
      configuration: { baseURL: context.baseURL },
    }),
    systemPrompt: demoSystemPrompt,
    tools: [
      tool(run("read_file"), {
        name: "read_file",
        description: toolDescriptions.read_file,
        schema: z.object({ path: z.string() }),
      }),
      tool(run("bash"), {
        name: "bash",
        description: toolDescriptions.bash,
        schema: z.object({ command: z.string() }),
      }),
    ],
    middleware: [
      toolCallRecoveryMiddleware({ onEvent: context.onEvent, persistFailed: context.persistFailed }),
    ],
  })
  // The text of each model message, by message id: the answer is the last one's, after the tool.
  const texts = new Map<string, string[]>()
  try {
    const stream = await agent.stream(
      { messages: [{ role: "user", content: context.scenario.prompt }] },
      { streamMode: "messages" },
    )
    for await (const [chunk] of stream) {
      if (!AIMessageChunk.isInstance(chunk) || typeof chunk.content !== "string") continue
      if (chunk.content.length === 0) continue
      context.trace.modelText(chunk.content)
      const id = chunk.id ?? ""
      texts.set(id, [...(texts.get(id) ?? []), chunk.content])
    }
    context.trace.endModelText()
    outcome.answer = outcome.tools.length > 0 ? ([...texts.values()].at(-1)?.join("") ?? "") : ""
  } catch (error) {
    // createAgent wraps what a middleware throws; the guard recognises the wrapper.
    if (!isToolCallRecoveryError(error)) throw error
    context.trace.endModelText()
    outcome.error = { code: error.code, message: error.message }
  }
}
