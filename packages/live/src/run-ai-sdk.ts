import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { toolCallRecoveryMiddleware } from "@tool-rescue/ai-sdk"
import { isStepCount, streamText, tool, wrapLanguageModel } from "ai"
import { MAX_STEPS, recoveryErrorOf, systemPrompt, type TurnRunner } from "./live-turn.ts"
import { toolNames, toolSpecs } from "./live-workspace.ts"

/**
 * The AI SDK's agent loop: `@ai-sdk/openai-compatible` wrapped with `toolCallRecoveryMiddleware`,
 * `streamText` with the file tools and `stopWhen: isStepCount(MAX_STEPS)`.
 */
export const runAiSdk: TurnRunner = async ({ target, task, tools, onEvent, signal }) => {
  const provider = createOpenAICompatible({ name: "live", baseURL: target.baseURL, apiKey: target.apiKey })
  const model = wrapLanguageModel({
    model: provider.chatModel(target.model),
    middleware: toolCallRecoveryMiddleware({ onEvent }),
  })
  const result = streamText({
    model,
    system: systemPrompt,
    prompt: task.prompt,
    maxRetries: 0,
    abortSignal: signal,
    // Errors arrive as `error` parts below; the default handler would only log them.
    onError: () => {},
    stopWhen: isStepCount(MAX_STEPS),
    tools: Object.fromEntries(
      toolNames.map((name) => [
        name,
        tool({
          description: toolSpecs[name].description,
          inputSchema: toolSpecs[name].schema,
          execute: (input: unknown) => tools.run(name, input),
        }),
      ]),
    ),
  })
  let answer = ""
  for await (const part of result.fullStream) {
    if (part.type === "start-step") answer = ""
    if (part.type === "text-delta") answer += part.text
    if (part.type === "error") {
      const outcome = recoveryErrorOf(part.error)
      if (outcome === undefined) throw part.error
      return outcome
    }
  }
  return { answer }
}
