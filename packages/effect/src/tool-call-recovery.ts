/**
 * `ToolCallRecovery`: tool-call rescue for Effect AI (`effect/ai`).
 *
 * - {@link layer}, {@link decorate}, {@link withRecovery}: recover tool calls a model wrote as
 *   text (the `LanguageModel` service, decorated).
 * - {@link generateText}, {@link streamText}: Effect's accessors plus `unknownToolCalls`, which
 *   answers calls to unknown tools with failed tool results and describes them with
 *   {@link ToolCallErrorPart}s (Effect-TS/effect #7574).
 * - {@link withUnknownToolCalls}: the same option for every call an effect makes, `Chat`'s
 *   included (effect 4.1's `Chat` types do not take the option per call).
 * - {@link fromResponseParts}: Effect's `Prompt.fromResponseParts`, typed for such a response.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import type { LanguageModel } from "effect/ai"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * declare const ProviderModel: Layer.Layer<LanguageModel.LanguageModel>
 * const Model = ToolCallRecovery.layer().pipe(Layer.provideMerge(ProviderModel))
 * ```
 *
 * @module
 */
export { decorate, layer, type Options, type WithRecovery, withRecovery } from "./decorate.ts"
export {
  isToolCallRecoveryError,
  type ToolCallRecoveryAiError,
  type ToolCallRecoveryDetails,
} from "./tool-call-recovery-error.ts"
export {
  fromResponseParts,
  type GenerateTextResponse,
  generateText,
  isToolCallErrorPart,
  streamText,
  type ToolCallErrorCallPart,
  ToolCallErrorPart,
  type ToolCallErrorPartEncoded,
  type ToolCallErrorPartOf,
  type ToolCallErrorResultPart,
  type UnknownToolCalls,
  type UnknownToolCallsOptions,
  type WithUnknownToolCalls,
  withUnknownToolCalls,
} from "./unknown-tool-calls/index.ts"
