import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager"
import { AIMessage, type BaseMessage, isAIMessage, type UsageMetadata } from "@langchain/core/messages"
import type { ChatResult } from "@langchain/core/outputs"
import type { NormalizedPart } from "@tool-rescue/recovery"
import {
  type CallOptions,
  type ModelCall,
  mutedTokens,
  type RecoverySettings,
  recoveryTurn,
} from "./recovery-run.ts"
import { createTurnUsage, settleTokenUsage } from "./turn-usage.ts"

/** The model's own `_generate`, called on the unwrapped model. */
export type Generate = (
  messages: BaseMessage[],
  options: CallOptions,
  runManager: CallbackManagerForLLMRun | undefined,
) => Promise<ChatResult>

/**
 * The wrapped `_generate`: the result of the last attempt, its message's text without the markup,
 * usage summed over the attempts. The malformed response (prose included) is absent from the
 * result. A result with several generations (`n > 1`) cannot be spliced into one retry: it is
 * passed through unscanned.
 */
export async function recoverGenerate(
  generate: Generate,
  settings: RecoverySettings,
  call: ModelCall,
  runManager: CallbackManagerForLLMRun | undefined,
): Promise<ChatResult> {
  const { messages, options } = call
  const muted = mutedTokens(runManager)
  const parts = recoveryTurn<ChatResult>(settings, call, async function* (attemptMessages, attemptOptions) {
    yield* resultParts(await generate(attemptMessages, attemptOptions, muted))
  })
  if (parts === undefined) return generate(messages, options, runManager)
  const usage = createTurnUsage()
  const discarded: UsageMetadata[] = []
  let text: string[] = []
  let reasoning: string[] = []
  let result: ChatResult | undefined
  for await (const part of parts) {
    switch (part.type) {
      case "attempt-start":
        // The malformed response is dropped whole: only its cost remains.
        text = []
        reasoning = []
        for (const raw of part.discarded) {
          const spent = usageOfResult(raw)
          usage.discard(spent)
          if (spent !== undefined) discarded.push(spent)
        }
        break
      case "text":
        text.push(part.text)
        break
      case "reasoning":
        reasoning.push(part.text)
        break
      case "finish":
        result = part.raw
        break
      case "tool-call":
      case "other":
        break
      default:
        part satisfies never
    }
  }
  if (result === undefined) throw new Error("tool-rescue: the model returned no result")
  const [generation] = result.generations
  if (result.generations.length !== 1 || generation === undefined || !isAIMessage(generation.message))
    return result
  const message = generation.message
  const content = typeof message.content === "string" ? text.join("") : message.content
  const reasoningText = reasoning.join("")
  const summed = usage.settle(message.usage_metadata)
  const rebuilt = new AIMessage({
    content,
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.name === undefined ? {} : { name: message.name }),
    additional_kwargs:
      typeof message.additional_kwargs.reasoning_content === "string"
        ? { ...message.additional_kwargs, reasoning_content: reasoningText }
        : message.additional_kwargs,
    response_metadata: message.response_metadata,
    tool_calls: message.tool_calls ?? [],
    invalid_tool_calls: message.invalid_tool_calls ?? [],
    ...(summed === undefined ? {} : { usage_metadata: summed }),
  } as ConstructorParameters<typeof AIMessage>[0])
  const llmOutput = settleTokenUsage(result.llmOutput, discarded)
  return {
    ...result,
    generations: [
      { ...generation, text: typeof content === "string" ? content : generation.text, message: rebuilt },
    ],
    ...(llmOutput === undefined ? {} : { llmOutput }),
  }
}

/** The normalized parts of one (non-streamed) result: reasoning, text, calls, then the finish. */
function resultParts(result: ChatResult): NormalizedPart<ChatResult>[] {
  const [generation] = result.generations
  const message = generation?.message
  if (result.generations.length !== 1 || message === undefined || !isAIMessage(message)) {
    return [{ type: "finish", raw: result }]
  }
  const parts: NormalizedPart<ChatResult>[] = []
  const reasoning = message.additional_kwargs.reasoning_content
  if (typeof reasoning === "string" && reasoning !== "")
    parts.push({ type: "reasoning", text: reasoning, raw: result })
  if (typeof message.content === "string" && message.content !== "") {
    parts.push({ type: "text", text: message.content, raw: result })
  }
  for (const call of message.tool_calls ?? []) {
    parts.push({ type: "tool-call", toolName: call.name, params: JSON.stringify(call.args), raw: result })
  }
  // A call whose arguments did not parse is still a structured call: never a reason to retry.
  for (const call of message.invalid_tool_calls ?? []) {
    if (call.name !== undefined)
      parts.push({ type: "tool-call", toolName: call.name, params: call.args ?? "", raw: result })
  }
  parts.push({ type: "finish", raw: result })
  return parts
}

function usageOfResult(result: ChatResult): UsageMetadata | undefined {
  const message = result.generations[0]?.message
  return message !== undefined && isAIMessage(message) ? message.usage_metadata : undefined
}
