import { withToolCallRecovery } from "@tool-rescue/openai"
import OpenAI from "openai"
import type { RunnableToolFunctionWithParse } from "openai/lib/RunnableFunction"
import { z } from "zod"
import {
  MAX_STEPS,
  recoveryErrorOf,
  systemPrompt,
  type TurnContext,
  type TurnOutcome,
  type TurnRunner,
} from "./live-turn.ts"
import { toolNames, toolSpecs } from "./live-workspace.ts"

/**
 * The `openai` client's own agent loop, `chat.completions.runTools` (streaming), over `client`.
 * The proxy runner reuses it with a plain client pointed at the proxy.
 */
export async function runToolsTurn(
  client: OpenAI,
  { target, task, tools, signal }: TurnContext,
): Promise<TurnOutcome> {
  const runnable = toolNames.map(
    (name): RunnableToolFunctionWithParse<Record<string, unknown>> => ({
      type: "function",
      function: {
        name,
        description: toolSpecs[name].description,
        parameters: z.toJSONSchema(toolSpecs[name].schema) as Record<string, unknown>,
        parse: (text: string) => JSON.parse(text) as Record<string, unknown>,
        function: (input: Record<string, unknown>) => tools.run(name, input),
      },
    }),
  )
  try {
    const runner = client.chat.completions.runTools(
      {
        model: target.model,
        messages: [
          { role: "system", content: systemPrompt },
          { role: "user", content: task.prompt },
        ],
        tools: runnable,
        stream: true,
      },
      { maxChatCompletions: MAX_STEPS, signal },
    )
    return { answer: (await runner.finalContent()) ?? "" }
  } catch (error) {
    const outcome = recoveryErrorOf(error)
    if (outcome === undefined) throw error
    return outcome
  }
}

/** The `openai` client wrapped with `withToolCallRecovery`, in `runTools`. */
export const runOpenAi: TurnRunner = (context) => {
  const { target, onEvent } = context
  const client = withToolCallRecovery(
    new OpenAI({ baseURL: target.baseURL, apiKey: target.apiKey, maxRetries: 0 }),
    { onEvent },
  )
  return runToolsTurn(client, context)
}
