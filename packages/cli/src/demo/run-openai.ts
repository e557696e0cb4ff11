import { withToolCallRecovery } from "@tool-rescue/openai"
import { isToolCallRecoveryError } from "@tool-rescue/recovery"
import OpenAI from "openai"
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions"
import { addToolCallDelta, type ToolCallDraft } from "./add-tool-call-delta.ts"
import type { TurnContext, TurnOutcome } from "./demo-turn.ts"
import { chatTools, demoSystemPrompt } from "./demo-world.ts"

/**
 * One agent turn with the official `openai` client wrapped by `withToolCallRecovery`: stream a
 * chat completion, run the structured tool calls, send the results, stream the answer.
 */
export async function runOpenAiTurn(context: TurnContext, outcome: TurnOutcome): Promise<void> {
  const client = withToolCallRecovery(
    new OpenAI({ baseURL: context.baseURL, apiKey: "demo", maxRetries: 0 }),
    {
      onEvent: context.onEvent,
      persistFailed: context.persistFailed,
    },
  )
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: demoSystemPrompt },
    { role: "user", content: context.scenario.prompt },
  ]
  try {
    // An agent loop: at most one tool round in this demo, then the answer.
    for (let step = 0; step < 2; step++) {
      const stream = await client.chat.completions.create({
        model: "replay-model",
        messages,
        tools: [...chatTools] satisfies ChatCompletionTool[],
        stream: true,
      })
      const text: string[] = []
      const calls = new Map<number, ToolCallDraft>()
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta
        if (delta === undefined) continue
        if (typeof delta.content === "string" && delta.content.length > 0) {
          context.trace.modelText(delta.content)
          text.push(delta.content)
        }
        for (const call of delta.tool_calls ?? []) addToolCallDelta(calls, call)
      }
      context.trace.endModelText()
      if (calls.size === 0) {
        outcome.answer = text.join("")
        return
      }
      const toolCalls = [...calls.values()].map((call) => ({
        id: call.id,
        type: "function" as const,
        function: { name: call.name, arguments: call.args.join("") },
      }))
      messages.push({
        role: "assistant",
        content: text.length > 0 ? text.join("") : null,
        tool_calls: toolCalls,
      })
      for (const call of toolCalls) {
        const input: unknown = JSON.parse(call.function.arguments)
        const run = await context.runTool(call.function.name, input)
        messages.push({ role: "tool", tool_call_id: call.id, content: run.output })
      }
    }
  } catch (error) {
    if (!isToolCallRecoveryError(error)) throw error
    context.trace.endModelText()
    outcome.error = { code: error.code, message: error.message }
  }
}
