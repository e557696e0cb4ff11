/**
 * `@tool-rescue/ai-sdk/v6`: the same middleware for AI SDK 6 (`ai@6`, `LanguageModelV3`).
 *
 * The V3 specification is a structural subset of V4 for everything the middleware touches (V4
 * adds part types and optional fields: `citations`, `inputEncoding`, `custom`, `reasoning-file`,
 * `ping`), so the V4 implementation runs on V3 models unchanged; only the declared types differ.
 * ai@7's `wrapLanguageModel` does not accept a V3-typed middleware: AI SDK 7 users import the
 * package root instead.
 */
import type { LanguageModelV3Middleware } from "@ai-sdk/provider"
import type { ToolCallRecoveryMiddlewareOptions } from "./options.ts"
import { recoveryHooks } from "./tool-call-recovery-middleware.ts"

export type { ToolCallRecoveryMiddlewareOptions }

/**
 * A `LanguageModelV3Middleware` for `wrapLanguageModel` of AI SDK 6 that recovers tool calls a
 * model wrote as text. Same behaviour and options as the AI SDK 7 middleware of the package
 * root.
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from "@ai-sdk/openai-compatible" // v2, for ai@6
 * import { generateText, wrapLanguageModel } from "ai" // ai@6
 * import { toolCallRecoveryMiddleware } from "@tool-rescue/ai-sdk/v6"
 *
 * const lmstudio = createOpenAICompatible({ name: "lmstudio", baseURL: "http://localhost:1234/v1" })
 * const model = wrapLanguageModel({ model: lmstudio("qwen/qwen3-coder-30b"), middleware: toolCallRecoveryMiddleware() })
 * const { text } = await generateText({ model, prompt: "Hello" })
 * ```
 */
export function toolCallRecoveryMiddleware(
  options?: ToolCallRecoveryMiddlewareOptions,
): LanguageModelV3Middleware {
  const { wrapStream, wrapGenerate } = recoveryHooks(options)
  return {
    specificationVersion: "v3",
    wrapStream: wrapStream as unknown as NonNullable<LanguageModelV3Middleware["wrapStream"]>,
    wrapGenerate: wrapGenerate as unknown as NonNullable<LanguageModelV3Middleware["wrapGenerate"]>,
  }
}
