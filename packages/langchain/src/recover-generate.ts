import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager"
import { AIMessage, type BaseMessage, isAIMessage, type UsageMetadata } from "@langchain/core/messages"
import type { ChatResult } from "@langchain/core/outputs"
import type { NormalizedPart } from "@tool-rescue/recovery"
import { reasoningField, sumUsage } from "@tool-rescue/recovery/adapter"
import { isTruncated } from "./chunk-parts.ts"
import { contentText, withText } from "./content-text.ts"
import {
  type CallOptions,
  type ModelCall,
  mutedTokens,
  type RecoverySettings,
  recoveryTurn,
} from "./recovery-turn.ts"
import { markTurn } from "./turn-mark.ts"

/** The model's own `_generate`, called on the unwrapped model. */
export type Generate = (
  messages: BaseMessage[],
  options: CallOptions,
  runManager: CallbackManagerForLLMRun | undefined,
) => Promise<ChatResult>

/**
 * The wrapped `_generate`: the result of the last attempt, its message's text without the markup,
 * usage (`usage_metadata` and `llmOutput.tokenUsage`) summed over the attempts, and the turn mark
 * on a recovered message. The malformed response (prose included) is absent from the result. A
 * result with several generations (`n > 1`) cannot be spliced into one retry: it is passed
 * through unscanned.
 */
export async function recoverGenerate(
  generate: Generate,
  settings: RecoverySettings,
  call: ModelCall,
  runManager: CallbackManagerForLLMRun | undefined,
): Promise<ChatResult> {
  const muted = mutedTokens(runManager)
  const turn = recoveryTurn<ChatResult>(settings, call, async function* (messages, options) {
    yield* resultParts(await generate(messages, options, muted))
  })
  if (turn === undefined) return generate(call.messages, call.options, runManager)
  const discarded: ChatResult[] = []
  let retries = 0
  let text: string[] = []
  let reasoning: string[] = []
  let result: ChatResult | undefined
  for await (const part of turn.parts) {
    switch (part.type) {
      case "attempt-start":
        // The malformed response is dropped whole: only its cost remains.
        retries++
        text = []
        reasoning = []
        discarded.push(...part.discarded)
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
  const content = withText(message.content, text.join(""))
  const field = reasoningField(message.additional_kwargs)
  let usage: UsageMetadata | undefined = message.usage_metadata
  let tokenUsage = result.llmOutput?.tokenUsage
  for (const spent of discarded) {
    const spentUsage = usageOf(spent)
    if (spentUsage !== undefined) usage = usage === undefined ? spentUsage : sumUsage(spentUsage, usage)
    if (spent.llmOutput?.tokenUsage !== undefined)
      tokenUsage = sumUsage(spent.llmOutput.tokenUsage, tokenUsage)
  }
  const rebuilt = new AIMessage({
    content,
    ...(message.id === undefined ? {} : { id: message.id }),
    ...(message.name === undefined ? {} : { name: message.name }),
    additional_kwargs:
      field === undefined
        ? message.additional_kwargs
        : { ...message.additional_kwargs, [field]: reasoning.join("") },
    response_metadata:
      retries === 0
        ? message.response_metadata
        : markTurn(message.response_metadata, turn.recoveriesBefore + retries),
    tool_calls: message.tool_calls ?? [],
    invalid_tool_calls: message.invalid_tool_calls ?? [],
    ...(usage === undefined ? {} : { usage_metadata: usage }),
  } as ConstructorParameters<typeof AIMessage>[0])
  return {
    ...result,
    generations: [{ ...generation, text: text.join(""), message: rebuilt }],
    ...(tokenUsage === undefined ? {} : { llmOutput: { ...result.llmOutput, tokenUsage } }),
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
  const field = reasoningField(message.additional_kwargs)
  const reasoning = field === undefined ? "" : String(message.additional_kwargs[field])
  if (reasoning !== "") parts.push({ type: "reasoning", text: reasoning, raw: result })
  for (const { text } of contentText(message.content).pieces) parts.push({ type: "text", text, raw: result })
  for (const call of message.tool_calls ?? []) {
    parts.push({ type: "tool-call", toolName: call.name, params: JSON.stringify(call.args), raw: result })
  }
  // A call whose arguments did not parse is still a structured call: never a reason to retry.
  for (const call of message.invalid_tool_calls ?? []) {
    if (call.name !== undefined)
      parts.push({ type: "tool-call", toolName: call.name, params: call.args ?? "", raw: result })
  }
  parts.push(
    isTruncated(generation?.generationInfo, message.response_metadata)
      ? { type: "finish", raw: result, truncated: true }
      : { type: "finish", raw: result },
  )
  return parts
}

function usageOf(result: ChatResult): UsageMetadata | undefined {
  const message = result.generations[0]?.message
  return message !== undefined && isAIMessage(message) ? message.usage_metadata : undefined
}
