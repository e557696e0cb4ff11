import { Effect, Stream } from "effect"
import { LanguageModel, type Response, type Tool } from "effect/ai"
import { type AnyOptions, typed, untyped } from "../untyped-model.ts"
import {
  checkUnknownToolCalls,
  type GenerateTextResponse,
  returningUnknownToolCalls,
  type UnknownToolCalls,
  type UnknownToolCallsOptions,
} from "./accessors.ts"
import type {
  ToolCallErrorCallPart,
  ToolCallErrorPart,
  ToolCallErrorResultPart,
} from "./tool-call-error-part.ts"

/** Where a service that honours the option takes it from when a request leaves it out. */
export interface UnknownToolCallsDefaults {
  /**
   * The mode of a request that leaves the option out, passed on like a request's own (so a
   * decorated service below obeys an `"error"` too): `withUnknownToolCalls`'s.
   */
  readonly perCall?: UnknownToolCalls | undefined
  /**
   * The mode when neither the request nor `perCall` says: a layer's. Not passed on, so
   * `withRecovery()` over a `"return"` layer keeps the layer's `"return"`.
   */
  readonly fallback?: UnknownToolCalls | undefined
}

/**
 * A service that reads `unknownToolCalls` on each request: `"return"` goes through
 * {@link returningUnknownToolCalls} over `service`, anything else to `service` itself. The option
 * is taken off the request before `service`, except an explicit `"error"`, which travels on so a
 * decorated service below does not return unknown calls either (Effect's own service ignores it:
 * `LanguageModel.make` builds the provider's options field by field).
 *
 * Effect 4.1's `Chat` and `LanguageModel.*` accessors spread the caller's options into the
 * service's, so a per-call option arrives here (Effect-TS/effect #7574: "Chat forwards it").
 */
export const honouringUnknownToolCalls =
  (defaults: UnknownToolCallsDefaults) =>
  (service: LanguageModel.LanguageModel): LanguageModel.LanguageModel => {
    const returning = untyped(returningUnknownToolCalls(service))
    const plain = untyped(service)
    const route = (request: AnyOptions & UnknownToolCallsOptions) => {
      const { unknownToolCalls, ...rest } = request
      const own = checkUnknownToolCalls(unknownToolCalls) ?? defaults.perCall
      if ((own ?? defaults.fallback) === "return") return { model: returning, request: rest }
      return { model: plain, request: own === "error" ? { ...rest, unknownToolCalls: own } : rest }
    }
    return typed(
      {
        generateText: (request) => {
          const { model, request: options } = route(request)
          return model.generateText(options)
        },
        generateObject: (request) => {
          const { model, request: options } = route(request)
          return model.generateObject(options)
        },
        streamText: (request) => {
          const { model, request: options } = route(request)
          return model.streamText(options)
        },
      },
      service,
    )
  }

/**
 * Runs an effect or a stream with `unknownToolCalls` set for every `LanguageModel` call it makes:
 * `Chat.generateText`, `Chat.streamText`, `Chat.generateObject` and the `LanguageModel.*`
 * accessors. This is the per-call form for `Chat`, whose options in effect 4.1 are
 * `LanguageModel.GenerateTextOptions`, checked for excess properties, so
 * `chat.generateText({ prompt, toolkit, unknownToolCalls: "return" })` does not compile until
 * Effect ships the option (Effect-TS/effect #7574).
 *
 * It needs no `ToolCallRecovery.layer()`: the `LanguageModel` the effect runs with is decorated for it
 * (`Effect.updateService`), over a `ToolCallRecovery.layer()` or over a provider's plain model.
 * Under a layer it wins over the layer's `unknownToolCalls`, both ways: `"error"` keeps Effect's
 * behaviour under a `"return"` layer. The innermost `withUnknownToolCalls` wins.
 *
 * Types: with `"return"`, an effect that succeeds with Effect's `GenerateTextResponse` (what
 * `chat.generateText` returns) succeeds with {@link GenerateTextResponse}, whose
 * `toolCallErrors` lists the {@link ToolCallErrorPart}s, and a stream of Effect's response parts
 * (what `chat.streamText` returns) also carries the error parts with their call and failed
 * result. Other effects, and `"error"`, keep their types; every result requires `LanguageModel`.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Chat, Tool, Toolkit } from "effect/ai"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const toolkit = Toolkit.make(
 *   Tool.make("GetWeather", { parameters: Schema.Struct({ city: Schema.String }), success: Schema.String }),
 * )
 *
 * const program = Effect.gen(function* () {
 *   const chat = yield* Chat.empty
 *   const response = yield* chat
 *     .generateText({ prompt: "Weather in Paris?", toolkit })
 *     .pipe(ToolCallRecovery.withUnknownToolCalls("return"))
 *   for (const error of response.toolCallErrors) console.log(error.name, error.error.reason.message)
 * })
 * ```
 */
export function withUnknownToolCalls<const Mode extends UnknownToolCalls>(
  mode: Mode,
): <Self extends Effect.Effect<unknown, unknown, unknown> | Stream.Stream<unknown, unknown, unknown>>(
  self: Self,
) => WithUnknownToolCalls<Self, Mode> {
  // API misuse (an invalid mode) throws here, where the helper is built, not mid-request.
  const perCall = checkUnknownToolCalls(mode)
  const apply = honouringUnknownToolCalls({ perCall })
  // Forced: the conditional `WithUnknownToolCalls<Self, Mode>` cannot be checked against a body
  // that is not generic; at run time each branch keeps its input and decorates the service.
  return ((self: Effect.Effect<unknown> | Stream.Stream<unknown>) =>
    Stream.isStream(self)
      ? Stream.updateService(self, LanguageModel.LanguageModel, apply)
      : Effect.updateService(self, LanguageModel.LanguageModel, apply)) as never
}

/**
 * What {@link withUnknownToolCalls} returns for an effect or a stream: the same, requiring
 * `LanguageModel`, and with `"return"` the response types of `Chat` gain the error parts (an
 * effect of Effect's `GenerateTextResponse`, a stream of its response parts). Responses in
 * deferred validation mode are left alone: the option changes nothing there.
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { LanguageModel } from "effect/ai"
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * type Returning = ToolCallRecovery.WithUnknownToolCalls<
 *   Effect.Effect<LanguageModel.GenerateTextResponse<{}>>,
 *   "return"
 * >
 * // Effect.Effect<ToolCallRecovery.GenerateTextResponse<{}, "decoded", ToolCallRecovery.ToolCallErrorPart>, never, LanguageModel.LanguageModel>
 * ```
 */
export type WithUnknownToolCalls<Self, Mode extends UnknownToolCalls> =
  Self extends Stream.Stream<infer A, infer E, infer R>
    ? Stream.Stream<Mode extends "return" ? ReturningStreamPart<A> : A, E, R | LanguageModel.LanguageModel>
    : Self extends Effect.Effect<infer A, infer E, infer R>
      ? Effect.Effect<Mode extends "return" ? ReturningResponse<A> : A, E, R | LanguageModel.LanguageModel>
      : never

/** Effect's `GenerateTextResponse` as it comes back under `"return"`; anything else unchanged. */
type ReturningResponse<A> =
  // `GenerateObjectResponse` extends `GenerateTextResponse`: its `value` must not be lost.
  A extends LanguageModel.GenerateObjectResponse<infer _T, infer _V, infer _P>
    ? A
    : A extends LanguageModel.GenerateTextResponse<
          infer Tools extends Record<string, Tool.Any>,
          infer ParametersMode
        >
      ? ParametersMode extends "deferred"
        ? A
        : GenerateTextResponse<Tools, ParametersMode, ToolCallErrorPart>
      : A

/** A stream of Effect's response parts gains the error parts with their call and failed result. */
type ReturningStreamPart<A> = [Extract<A, Response.FinishPart>] extends [never]
  ? A
  : A | ToolCallErrorPart | ToolCallErrorCallPart | ToolCallErrorResultPart
