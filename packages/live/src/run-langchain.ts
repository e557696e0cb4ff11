import { tool } from "@langchain/core/tools"
import { ChatOpenAI } from "@langchain/openai"
import { toolCallRecoveryMiddleware } from "@tool-rescue/langchain"
import { createAgent } from "langchain"
import { MAX_STEPS, recoveryErrorOf, systemPrompt, type TurnRunner } from "./live-turn.ts"
import { toolNames, toolSpecs } from "./live-workspace.ts"

/**
 * LangChain's agent loop: `createAgent` over a streaming `ChatOpenAI` with
 * `toolCallRecoveryMiddleware`.
 */
export const runLangChain: TurnRunner = async ({ target, task, tools, onEvent, signal }) => {
  const agent = createAgent({
    model: new ChatOpenAI({
      model: target.model,
      apiKey: target.apiKey,
      maxRetries: 0,
      streaming: true,
      configuration: { baseURL: target.baseURL },
    }),
    systemPrompt,
    tools: toolNames.map((name) =>
      tool((input: unknown) => tools.run(name, input), {
        name,
        description: toolSpecs[name].description,
        schema: toolSpecs[name].schema,
      }),
    ),
    middleware: [toolCallRecoveryMiddleware({ onEvent })],
  })
  try {
    // A model step and a tools step per round.
    const state = await agent.invoke(
      { messages: [{ role: "user", content: task.prompt }] },
      { recursionLimit: 2 * MAX_STEPS + 1, signal },
    )
    const last = state.messages.at(-1)
    return { answer: typeof last?.content === "string" ? last.content : JSON.stringify(last?.content) }
  } catch (error) {
    const outcome = recoveryErrorOf(error)
    if (outcome === undefined) throw error
    return outcome
  }
}
