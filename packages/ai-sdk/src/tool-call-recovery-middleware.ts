import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Middleware,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider"
import {
  createTurnMemory,
  planTurn,
  type ResolvedRecoveryOptions,
  recallTurn,
  resolveRecoveryOptions,
  type TurnPlan,
  turnKey,
} from "@tool-rescue/recovery/adapter"
import { collectGenerateResult, generateResultParts } from "./generate-result-parts.ts"
import type { ToolCallRecoveryMiddlewareOptions } from "./options.ts"
import { spliceTurn, type TurnSetup } from "./splice-turn.ts"
import { readTurnMark } from "./turn-mark.ts"

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
 *   (unique text ids, one `finish` with the usage of both calls). In `generateText` the
 *   malformed response is absent from the result and `response.messages`; in `streamText` the
 *   text already shown stays shown;
 * - **one recovery per user turn**: `maxRecoveries` counts across the steps of one
 *   `generateText`/`streamText` (`stopWhen`) and its continuations after a tool approval. The
 *   recovered step's tool calls carry `providerMetadata.toolRescue.recoveries`, which the AI SDK
 *   sends back in the next step's prompt; a second malformed response anywhere in the turn ends
 *   it with an `error` part (a `ToolCallRecoveryError`, `code: "repeated-markup"`) and `finish`
 *   reason `error`, without another model call; `generateText` rejects with it
 *   (`recoveryScope: "step"` gives every step its own budget).
 *
 * Structured calls, aborts and calls to unknown tools (`NoSuchToolError` → tool error) behave
 * exactly as without the middleware. Provider errors are final: a rejected request, an `error`
 * part in the stream (an `{"error": …}` chunk, malformed SSE JSON, a stream cut without a
 * finish) passes through unchanged and is never retried, markup or not; so does a provider
 * stream that just closes with neither a `finish` nor an `error` part (cut short: markup held
 * then is neither shown nor retried). A request with no tools,
 * or with `toolChoice: "none"`, is passed through untouched (a `recovery-skipped` event says so).
 *
 * The bound holds under retries: the SDK's `maxRetries` never retries our error, nor a failed
 * retry's provider error; a caller that runs a failed call again (its own retry loop) gets the
 * same error with no request, or the budget it already spent (for a minute, by the call's prompt
 * and tools; an answered call is forgotten).
 *
 * The AI SDK keeps reading a step's stream after a consumer stops reading `textStream` (a
 * `break`), so that `text`, `steps` and `onFinish` still resolve: a retry may still be sent.
 * Abort the call's `abortSignal` to stop it: no retry starts after an abort.
 *
 * With `extractReasoningMiddleware`, put this middleware first:
 * `[toolCallRecoveryMiddleware(), extractReasoningMiddleware({ tagName: "think" })]`.
 *
 * Invalid options throw at once (`TypeError` / `RangeError`). Run by AI SDK 6 (a model of
 * specification version `"v3"`), a call throws a `TypeError` naming `@tool-rescue/ai-sdk/v6`.
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
  const { wrapStream, wrapGenerate } = recoveryHooks(options)
  // ai@7's `wrapLanguageModel` turns every older model into a V4 one, so a model of another
  // version here means ai@6 runs this middleware: say which entry fits instead of failing later
  // on a type or a missing export.
  return {
    specificationVersion: "v4",
    wrapStream: (hook) => {
      assertModelVersion(hook.model)
      return wrapStream(hook)
    },
    wrapGenerate: (hook) => {
      assertModelVersion(hook.model)
      return wrapGenerate(hook)
    },
  }
}

/** Throws when the model is not a `LanguageModelV4`, naming the entry for AI SDK 6. */
function assertModelVersion(model: { readonly specificationVersion: string }): void {
  if (model.specificationVersion === "v4") return
  throw new TypeError(
    `@tool-rescue/ai-sdk: this middleware is for AI SDK 7 (LanguageModelV4), but the model is specification version "${model.specificationVersion}" (AI SDK 6 uses "v3"). With ai@6, import toolCallRecoveryMiddleware from "@tool-rescue/ai-sdk/v6".`,
  )
}

/**
 * The middleware's hooks without the model version check: the `/v6` entry runs them on V3
 * models, which they handle (V3 is a structural subset of V4 for what they touch).
 *
 * @internal
 * @example
 * ```ts
 * const { wrapStream, wrapGenerate } = recoveryHooks({ maxRecoveries: 1 })
 * ```
 */
export function recoveryHooks(
  options: ToolCallRecoveryMiddlewareOptions = {},
): Required<Pick<LanguageModelV4Middleware, "wrapStream" | "wrapGenerate">> {
  // Validate now: a misconfiguration throws where the middleware is created, not on a request.
  const resolved = resolveRecoveryOptions(options)
  // The calls that ended without an answer, by their prompt and tools: a caller that runs a
  // failed `generateText` / `streamText` again (its own retry loop; the SDK's `maxRetries` never
  // retries our error) gets the error it ended with, with no request, or the budget it spent.
  const memory = createTurnMemory()
  const recall = (params: LanguageModelV4CallOptions) =>
    recallTurn(memory, () => turnKey({ prompt: params.prompt, tools: toolNames(params) }))
  return {
    wrapStream: ({ doStream, params, model }) => {
      const recalled = recall(params)
      if (recalled.error !== undefined) return Promise.reject(recalled.error)
      const plan = planStep(resolved, params, model, recalled.spent)
      if (plan.kind === "skip") return doStream()
      return recoverStream(doStream, model, { params, plan, recalled })
    },
    wrapGenerate: ({ doGenerate, params, model }) => {
      const recalled = recall(params)
      if (recalled.error !== undefined) return Promise.reject(recalled.error)
      const plan = planStep(resolved, params, model, recalled.spent)
      if (plan.kind === "skip") return doGenerate()
      return recoverGenerate(doGenerate, model, { params, plan, recalled })
    },
  }
}

function toolNames(params: LanguageModelV4CallOptions): string[] {
  return params.tools?.map((tool) => tool.name) ?? []
}

/**
 * The step's plan: exactly the tools offered in this step (after `activeTools` / `prepareStep`:
 * core parses the returned calls against the same set), its tool choice, and the recoveries the
 * turn's history shows.
 */
function planStep(
  resolved: ResolvedRecoveryOptions,
  params: LanguageModelV4CallOptions,
  model: LanguageModelV4,
  spent: number,
): TurnPlan {
  return planTurn(resolved, {
    tools: toolNames(params),
    toolChoice: params.toolChoice?.type,
    recoveriesBefore: readTurnMark(params.prompt) + spent,
    model: model.modelId,
  })
}

type Setup = Omit<TurnSetup, "first" | "retry" | "mode">

async function recoverStream(
  doStream: () => PromiseLike<LanguageModelV4StreamResult>,
  model: LanguageModelV4,
  setup: Setup,
): Promise<LanguageModelV4StreamResult> {
  // Round 0 is requested before anything else: a provider error (HTTP 429, a refused connection)
  // rejects here, exactly as without the middleware, so the SDK's own retries still apply.
  const first = await doStream()
  const stream = spliceTurn({
    ...setup,
    first: first.stream,
    retry: async (retryParams) => (await model.doStream(retryParams)).stream,
    mode: "stream",
  })
  return { ...first, stream }
}

async function recoverGenerate(
  doGenerate: () => PromiseLike<LanguageModelV4GenerateResult>,
  model: LanguageModelV4,
  setup: Setup,
): Promise<LanguageModelV4GenerateResult> {
  let last = await doGenerate()
  const stream = spliceTurn({
    ...setup,
    first: generateResultParts(last),
    retry: async (retryParams) => {
      last = await model.doGenerate(retryParams).then(undefined, finalError)
      return generateResultParts(last)
    },
    mode: "generate",
  })
  return collectGenerateResult(stream, () => last)
}

/**
 * Rethrows a retry's provider error as final. The AI SDK retries a rejected `doGenerate` whose
 * error is `isRetryable` (`maxRetries`, default 2), and that re-ran this whole call: round 0 again,
 * with a fresh budget (three recoveries in one `generateText`). Provider errors are final, as in
 * `streamText`, where the retry's error ends the step's stream: the flag is cleared on the error
 * itself, so its class, status and body reach the caller unchanged.
 */
function finalError(error: unknown): never {
  if (typeof error === "object" && error !== null && Reflect.get(error, "isRetryable") === true) {
    // A frozen error keeps its flag: nothing better to do than rethrow it.
    Reflect.defineProperty(error, "isRetryable", { value: false })
  }
  throw error
}
