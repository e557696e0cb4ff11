import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Middleware,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider"
import {
  type RecoveryOptions,
  type RecoverySkipReason,
  reportSkipped,
  resolveRecoveryOptions,
} from "@tool-rescue/recovery"
import { collectGenerateResult, generateResultParts } from "./generate-result-parts.ts"
import type { ToolCallRecoveryMiddlewareOptions } from "./options.ts"
import { spliceTurn } from "./splice-turn.ts"

/**
 * A `LanguageModelV4Middleware` for `wrapLanguageModel` (AI SDK 7) that recovers tool calls a
 * model wrote as text:
 *
 * - leaked tool-call markup (Qwen3-Coder `<function=…>`, Hermes `<tool_call>`, DeepSeek, Kimi, GLM,
 *   gpt-oss… markers) is withheld from `text-delta`s and never executed;
 * - when the response has no structured tool call and the markup names a tool offered in this
 *   step (`params.tools`, i.e. after `activeTools` / `prepareStep`), the model is called again
 *   with a host instruction (merged into the leading system message by default) and without the
 *   malformed response; the retry is spliced into the same stream, so the step sees one response
 *   (unique text ids, one `finish` with the usage of both calls);
 * - a second malformed response ends the stream with an `error` part (a `ToolCallRecoveryError`,
 *   `code: "repeated-markup"`) and `finish` reason `error`; `generateText` rejects with it.
 *
 * Structured calls, provider errors, aborts and calls to unknown tools (`NoSuchToolError` → tool
 * error) behave exactly as without the middleware. A request with no tools, or with
 * `toolChoice: "none"`, is passed through untouched (a `recovery-skipped` event says so).
 *
 * With `extractReasoningMiddleware`, put this middleware first:
 * `[toolCallRecoveryMiddleware(), extractReasoningMiddleware({ tagName: "think" })]`.
 *
 * Invalid options throw at once (`TypeError` / `RangeError`).
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from "@ai-sdk/openai-compatible"
 * import { streamText, tool, wrapLanguageModel } from "ai"
 * import { toolCallRecoveryMiddleware } from "@tool-rescue/ai-sdk"
 * import { z } from "zod"
 *
 * const ollama = createOpenAICompatible({ name: "ollama", baseURL: "http://localhost:11434/v1" })
 * const model = wrapLanguageModel({
 *   model: ollama("qwen3-coder:30b"),
 *   middleware: toolCallRecoveryMiddleware(),
 * })
 * const result = streamText({
 *   model,
 *   prompt: "List the markdown files.",
 *   tools: {
 *     glob: tool({ inputSchema: z.object({ pattern: z.string() }), execute: async ({ pattern }) => [pattern] }),
 *   },
 * })
 * for await (const text of result.textStream) process.stdout.write(text)
 * ```
 */
export function toolCallRecoveryMiddleware(
  options: ToolCallRecoveryMiddlewareOptions = {},
): LanguageModelV4Middleware {
  // Validate now: a misconfiguration throws where the middleware is created, not on a request.
  const { instructionPlacement: placement } = resolveRecoveryOptions(options)
  return {
    specificationVersion: "v4",
    wrapStream: ({ doStream, params, model }) => {
      const skip = skipReason(params)
      if (skip === undefined) return recoverStream(doStream, params, model, options, placement)
      reportSkipped(options, skip)
      return doStream()
    },
    wrapGenerate: ({ doGenerate, params, model }) => {
      const skip = skipReason(params)
      if (skip === undefined) return recoverGenerate(doGenerate, params, model, options, placement)
      reportSkipped(options, skip)
      return doGenerate()
    },
  }
}

/**
 * Requests recovery cannot apply to, passed through untouched: with no tool offered no markup
 * can name one (and prose about tool-call syntax stays as written), and with `toolChoice:
 * "none"` a retry asking for a structured call would only trade a leak for a
 * `ToolChoiceViolationError`.
 */
function skipReason(params: LanguageModelV4CallOptions): RecoverySkipReason | undefined {
  if (params.tools === undefined || params.tools.length === 0) return "no-tools"
  if (params.toolChoice?.type === "none") return "tool-choice-none"
  return undefined
}

async function recoverStream(
  doStream: () => PromiseLike<LanguageModelV4StreamResult>,
  params: LanguageModelV4CallOptions,
  model: LanguageModelV4,
  options: RecoveryOptions,
  placement: "system" | "user",
): Promise<LanguageModelV4StreamResult> {
  // Round 0 is requested before anything else: a provider error (HTTP 429, a refused connection)
  // rejects here, exactly as without the middleware, so the SDK's own retries still apply.
  const first = await doStream()
  const stream = spliceTurn({
    params,
    options,
    placement,
    first: first.stream,
    retry: async (retryParams) => (await model.doStream(retryParams)).stream,
    failure: "parts",
  })
  return { ...first, stream }
}

async function recoverGenerate(
  doGenerate: () => PromiseLike<LanguageModelV4GenerateResult>,
  params: LanguageModelV4CallOptions,
  model: LanguageModelV4,
  options: RecoveryOptions,
  placement: "system" | "user",
): Promise<LanguageModelV4GenerateResult> {
  let last = await doGenerate()
  const stream = spliceTurn({
    params,
    options,
    placement,
    first: generateResultParts(last),
    retry: async (retryParams) => {
      last = await model.doGenerate(retryParams)
      return generateResultParts(last)
    },
    failure: "throw",
  })
  return collectGenerateResult(stream, () => last)
}
