/**
 * The answers to structured calls of tools that were not offered (`unknownToolCalls: "return"`):
 * a chat `tool` message or a Responses `*_call_output` item per failed call, carrying the error
 * text, so that the next request answers every call the assistant made (OpenAI-compatible
 * servers reject a history with an unanswered `tool_call_id`).
 */
import type { ToolCallError } from "@tool-rescue/recovery"
import type { ChatCompletion, ChatCompletionToolMessageParam } from "openai/resources/chat/completions"
import type { Response, ResponseInputItem } from "openai/resources/responses/responses"

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null
}

/** Pairs each error with the first not yet answered call of the same name (and, when it matches, the same argument text). */
function match<Call>(
  calls: readonly Call[],
  errors: readonly ToolCallError[],
  describe: (call: Call) => { name: string; params: string } | undefined,
): Array<[Call, ToolCallError]> {
  const used = new Set<number>()
  const pairs: Array<[Call, ToolCallError]> = []
  for (const error of errors) {
    const pick = (exact: boolean): number =>
      calls.findIndex((call, index) => {
        if (used.has(index)) return false
        const described = describe(call)
        return described?.name === error.name && (!exact || described.params === error.params)
      })
    let found = pick(true)
    if (found === -1) found = pick(false)
    if (found === -1) continue
    used.add(found)
    pairs.push([calls[found]!, error])
  }
  return pairs
}

/**
 * The `tool` messages that answer the calls in `completion.tool_call_errors`: append them after
 * the assistant message (together with your own tool results) before the next request.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { toolCallErrorMessages, withToolCallRecovery } from "@tool-rescue/openai"
 *
 * const client = withToolCallRecovery(new OpenAI({ baseURL: "http://127.0.0.1:8000/v1", apiKey: "local" }), {
 *   unknownToolCalls: "return",
 * })
 * const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Tidy up /tmp." }]
 * const completion = await client.chat.completions.create({ model: "qwen3", messages, tools: [] })
 * const message = completion.choices[0]!.message
 * messages.push(message, ...toolCallErrorMessages(completion))
 * ```
 */
export function toolCallErrorMessages(
  completion: Pick<ChatCompletion, "choices"> & {
    readonly tool_call_errors?: readonly ToolCallError[] | undefined
  },
): ChatCompletionToolMessageParam[] {
  const errors = completion.tool_call_errors ?? []
  if (errors.length === 0) return []
  const calls = completion.choices[0]?.message.tool_calls ?? []
  return match(calls, errors, (call) =>
    call.type === "custom"
      ? { name: call.custom.name, params: call.custom.input }
      : { name: call.function.name, params: call.function.arguments },
  ).map(([call, error]) => ({ role: "tool", tool_call_id: call.id, content: error.error }))
}

/**
 * The `function_call_output` / `custom_tool_call_output` input items that answer the calls in
 * `response.tool_call_errors`: send them as `input` of the next request.
 *
 * @example
 * ```ts
 * import OpenAI from "openai"
 * import { toolCallErrorOutputs, withToolCallRecovery } from "@tool-rescue/openai"
 *
 * const client = withToolCallRecovery(new OpenAI({ baseURL: "http://127.0.0.1:8000/v1", apiKey: "local" }), {
 *   unknownToolCalls: "return",
 * })
 * const response = await client.responses.create({ model: "qwen3", input: "Tidy up /tmp.", tools: [] })
 * const next = await client.responses.create({
 *   model: "qwen3",
 *   previous_response_id: response.id,
 *   input: toolCallErrorOutputs(response),
 * })
 * ```
 */
export function toolCallErrorOutputs(
  response: Pick<Response, "output"> & { readonly tool_call_errors?: readonly ToolCallError[] | undefined },
): ResponseInputItem[] {
  const errors = response.tool_call_errors ?? []
  if (errors.length === 0) return []
  const calls = (response.output ?? []).filter(
    (item) => isRecord(item) && (item.type === "function_call" || item.type === "custom_tool_call"),
  )
  return match(calls, errors, (item) =>
    item.type === "function_call"
      ? { name: item.name, params: item.arguments }
      : item.type === "custom_tool_call"
        ? { name: item.name, params: item.input }
        : undefined,
  ).map(([item, error]): ResponseInputItem => {
    const callId = (item as { call_id: string }).call_id
    return item.type === "custom_tool_call"
      ? { type: "custom_tool_call_output", call_id: callId, output: error.error }
      : { type: "function_call_output", call_id: callId, output: error.error }
  })
}
