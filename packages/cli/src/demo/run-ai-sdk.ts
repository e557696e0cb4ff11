import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
import { toolCallRecoveryMiddleware } from "@tool-rescue/ai-sdk"
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import { isStepCount, streamText, tool, wrapLanguageModel } from "ai"
import { z } from "zod"
import type { TurnContext, TurnOutcome } from "./demo-turn.ts"
import { demoSystemPrompt, toolDescriptions } from "./demo-world.ts"

/**
 * One agent turn with the Vercel AI SDK: `@ai-sdk/openai-compatible` over HTTP, wrapped with
 * `toolCallRecoveryMiddleware`, `streamText` with two tools and `stopWhen: isStepCount(2)` (the
 * tool step, then the answer step).
 */
export async function runAiSdkTurn(context: TurnContext, outcome: TurnOutcome): Promise<void> {
  const provider = createOpenAICompatible({ name: "replay", baseURL: context.baseURL, apiKey: "demo" })
  const model = wrapLanguageModel({
    model: provider.chatModel("replay-model"),
    middleware: toolCallRecoveryMiddleware({
      onEvent: context.onEvent,
      persistFailed: context.persistFailed,
    }),
  })
  const run = (name: string) => async (input: unknown) => {
    const result = await context.runTool(name, input)
    if (!result.ok) throw new Error(result.output)
    return result.output
  }
  const result = streamText({
    model,
    system: demoSystemPrompt,
    prompt: context.scenario.prompt,
    maxRetries: 0,
    // The error reaches us as an `error` part below; the default handler would also log it.
    onError: () => {},
    stopWhen: isStepCount(2),
    tools: {
      read_file: tool({
        description: toolDescriptions.read_file,
        inputSchema: z.object({ path: z.string() }),
        execute: run("read_file"),
      }),
      bash: tool({
        description: toolDescriptions.bash,
        inputSchema: z.object({ command: z.string() }),
        execute: run("bash"),
      }),
    },
  })
  const steps: string[][] = [[]]
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        context.trace.modelText(part.text)
        steps.at(-1)?.push(part.text)
        break
      case "finish-step":
        context.trace.endModelText()
        steps.push([])
        break
      case "error": {
        context.trace.endModelText()
        const error: unknown = part.error
        if (!isToolCallRecoveryError(error)) throw error
        outcome.error = { code: error.code, message: error.message }
        break
      }
      default:
        break
    }
  }
  context.trace.endModelText()
  if (outcome.error === undefined) {
    // The answer is the text of the last step that had any (after the tool step).
    const texts = steps.map((step) => step.join("")).filter((text) => text.length > 0)
    outcome.answer = outcome.tools.length > 0 ? (texts.at(-1) ?? "") : ""
  }
}
