import type {
  UnknownToolCalls as RecoveryUnknownToolCalls,
  ToolCallErrorPartFor,
} from "@tool-rescue/recovery"
import { Effect, Stream } from "effect"
import { LanguageModel, type Response, type Tool } from "effect/ai"
import type { NoExcessProperties } from "effect/Types"
import { type AnyOptions, typed, untyped } from "../untyped-model.ts"
import {
  generateObjectMethod,
  generateReturning,
  generateTextMethod,
  isDeferred,
  modeOf,
  streamReturning,
} from "./returning.ts"
import type {
  ToolCallErrorCallPart,
  ToolCallErrorPart,
  ToolCallErrorResultPart,
} from "./tool-call-error-part.ts"

/**
 * The values of the `unknownToolCalls` option: `"error"` (the default, Effect's behaviour) or
 * `"return"` (see {@link UnknownToolCallsOptions}). The same as `@tool-rescue/recovery`'s; declared
 * here as an alias, not re-exported, because rollup-plugin-dts (6.5.1) declares a re-exported
 * external type as a value in the `ToolCallRecovery` namespace of `dist/index.d.ts`.
 *
 * @example
 * ```ts
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const mode: ToolCallRecovery.UnknownToolCalls = "return"
 * ```
 */
export type UnknownToolCalls = RecoveryUnknownToolCalls

/**
 * The option our `generateText` / `streamText` add to Effect's options.
 *
 * - `"error"` (default): Effect's own behaviour and types, unchanged: a call to a tool the
 *   toolkit does not hold fails the operation with an `InvalidOutputError`.
 * - `"return"`: such a call is answered by a failed tool result in the response (so
 *   `Prompt.fromResponseParts(response.content)` gives the call and its failed result) and
 *   described by a {@link ToolCallErrorPart} (`toolCallErrors` lists them); a known tool's invalid
 *   params follow its `failureMode` even with `disableToolCallResolution: true`. Stands in for
 *   Effect-TS/effect #7574.
 *
 * @example
 * ```ts
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const options: ToolCallRecovery.UnknownToolCallsOptions = { unknownToolCalls: "return" }
 * ```
 */
export interface UnknownToolCallsOptions {
  readonly unknownToolCalls?: UnknownToolCalls | undefined
}

/** The statically known value of the option in `Options` (`undefined` when left out). */
type OptionValue<Options> = "unknownToolCalls" extends keyof Options
  ? Options["unknownToolCalls" & keyof Options]
  : undefined

/**
 * The error part type a call with `Options` may produce: `never` for the default option (so the
 * response types are exactly Effect's), {@link ToolCallErrorPart} for `"return"` and for an
 * option whose value is not statically known.
 *
 * @example
 * ```ts
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * type None = ToolCallRecovery.ToolCallErrorPartOf<{ prompt: string }> // never
 * type Some = ToolCallRecovery.ToolCallErrorPartOf<{ prompt: string; unknownToolCalls: "return" }>
 * ```
 */
export type ToolCallErrorPartOf<Options> = ToolCallErrorPartFor<OptionValue<Options>, ToolCallErrorPart>

/**
 * What `content` gains when `ErrorPart` is not `never`: the error part, and the standard call and
 * failed result that come with it (their tool names need not be in the toolkit).
 */
type ReturnedParts<ErrorPart> = ErrorPart extends ToolCallErrorPart
  ? ErrorPart | ToolCallErrorCallPart | ToolCallErrorResultPart
  : never

/**
 * Effect's `GenerateTextResponse` plus `toolCallErrors`. With the default option `ErrorPart` is
 * `never`: `content`, `toolCalls` and `toolResults` are exactly Effect's types and
 * `toolCallErrors` is `Array<never>`. Otherwise `content` also holds the {@link ToolCallErrorPart}s
 * with their {@link ToolCallErrorCallPart}s and {@link ToolCallErrorResultPart}s (which
 * `toolCalls` and `toolResults` list too). At run time the response is an instance of Effect's
 * `LanguageModel.GenerateTextResponse`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const program = ToolCallRecovery.generateText({ prompt: "Hi", unknownToolCalls: "return" }).pipe(
 *   Effect.map((response) => response.toolCallErrors.map((part) => part.name)),
 * )
 * ```
 */
export interface GenerateTextResponse<
  Tools extends Record<string, Tool.Any>,
  ParametersMode extends Response.ToolParametersMode = "decoded",
  ErrorPart = never,
> extends Omit<
    LanguageModel.GenerateTextResponse<Tools, ParametersMode>,
    "content" | "toolCalls" | "toolResults"
  > {
  readonly content: Array<Response.Part<Tools, ParametersMode> | ReturnedParts<ErrorPart>>
  /** The `tool-call` parts of `content`, those answered by a failed result included. */
  readonly toolCalls: Array<
    Response.ToolCallParts<Tools, ParametersMode> | Extract<ReturnedParts<ErrorPart>, ToolCallErrorCallPart>
  >
  /** The `tool-result` parts of `content`, the failed results of the error parts included. */
  readonly toolResults: Array<
    Response.ToolResultParts<Tools> | Extract<ReturnedParts<ErrorPart>, ToolCallErrorResultPart>
  >
  /** The {@link ToolCallErrorPart}s of `content`, in order. */
  readonly toolCallErrors: Array<ErrorPart>
}

type WithoutToolkit = Omit<LanguageModel.GenerateTextOptions<{}>, "toolkit"> & {
  readonly toolkit?: undefined
} & UnknownToolCallsOptions

type WithToolkit<Tools extends Record<string, Tool.Any>> = LanguageModel.GenerateTextOptions<Tools> &
  UnknownToolCallsOptions & { readonly toolkit: LanguageModel.ToolkitInput<Tools> }

/**
 * The constraint of the overload for toolkit unions, as Effect's own accessors spell it:
 * `Toolkit.WithHandler` is invariant in its tools, so only `any` accepts every toolkit (and each
 * member of a union of them).
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; the same `any` as Effect's `LanguageModel.generateText`.
type AnyToolkitOptions = LanguageModel.GenerateTextOptions<any> & UnknownToolCallsOptions
// biome-ignore lint/suspicious/noExplicitAny: see AnyToolkitOptions.
type AnyToolkitOption = { readonly toolkit: LanguageModel.ToolkitOption<any> }

/**
 * `LanguageModel.generateText` with the `unknownToolCalls` option. With the default (`"error"`,
 * or left out) it is Effect's own call, the response only gains `toolCallErrors: Array<never>`.
 * With `"return"`, a structured call to a tool the toolkit does not hold no longer fails the
 * operation: `content` keeps the `tool-call`, followed by a {@link ToolCallErrorPart} describing
 * it, and a failed `tool-result` (the Toolkit's `ToolNotFoundError`) joins the tool results after
 * the response's parts; the calls to known tools are resolved by Effect as usual. So
 * `Prompt.fromResponseParts(response.content)` (or {@link fromResponseParts}, typed for this
 * content) gives the assistant's calls and every result, the failed ones included.
 *
 * With `disableToolCallResolution: true` as well, Effect runs no handler and the calls to known
 * tools stay for you to run; the unknown ones (which no handler of yours can run) are still
 * answered by their failed result, so skip the calls `toolCallErrors` lists.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool, Toolkit } from "effect/ai"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const toolkit = Toolkit.make(Tool.make("GetWeather", { parameters: Schema.Struct({ city: Schema.String }) }))
 *
 * const program = Effect.gen(function* () {
 *   const response = yield* ToolCallRecovery.generateText({
 *     prompt: "Weather in Paris?",
 *     toolkit,
 *     unknownToolCalls: "return",
 *   })
 *   for (const error of response.toolCallErrors) console.log(error.name, error.error.reason.message)
 * })
 * ```
 */
export function generateText<Options extends NoExcessProperties<WithoutToolkit, Options>>(
  options: Options & WithoutToolkit,
): Effect.Effect<
  GenerateTextResponse<
    {},
    LanguageModel.ExtractToolParametersModeWithoutToolkit<Options>,
    ToolCallErrorPartOf<Options>
  >,
  LanguageModel.ExtractError<Options>,
  LanguageModel.LanguageModel | LanguageModel.ExtractServices<Options>
>

export function generateText<
  Tools extends Record<string, Tool.Any>,
  Options extends NoExcessProperties<WithToolkit<Tools>, Options>,
>(
  options: Options & WithToolkit<Tools>,
): Effect.Effect<
  GenerateTextResponse<Tools, LanguageModel.ExtractToolParametersMode<Options>, ToolCallErrorPartOf<Options>>,
  LanguageModel.ExtractError<Options>,
  LanguageModel.LanguageModel | LanguageModel.ExtractServices<Options>
>

export function generateText<
  Options extends AnyToolkitOption & NoExcessProperties<AnyToolkitOptions, Options>,
>(
  options: Options &
    LanguageModel.GenerateTextOptions<LanguageModel.ExtractTools<Options>> &
    UnknownToolCallsOptions & { readonly toolkit: Options["toolkit"] },
): Effect.Effect<
  GenerateTextResponse<
    LanguageModel.ExtractTools<Options>,
    LanguageModel.ExtractToolParametersMode<Options>,
    ToolCallErrorPartOf<Options>
  >,
  LanguageModel.ExtractError<Options>,
  LanguageModel.ExtractServices<Options> | LanguageModel.LanguageModel
>
export function generateText(
  options: AnyOptions & UnknownToolCallsOptions,
): Effect.Effect<unknown, unknown, unknown> {
  const { unknownToolCalls, rest } = splitOptions(options)
  const mode = modeOf(unknownToolCalls, rest)
  return Effect.flatMap(Effect.service(LanguageModel.LanguageModel), (model) =>
    mode === "effect"
      ? Effect.map(untyped(model).generateText(rest), (response) =>
          generateTextMethod.respond(response, response.content),
        )
      : generateReturning(model, rest, generateTextMethod, mode),
  )
}

/**
 * `LanguageModel.streamText` with the `unknownToolCalls` option (see {@link generateText}). With
 * `"return"`, a call to an unknown tool is followed in the stream by a {@link ToolCallErrorPart}
 * and its failed `tool-result` (after the call, before `finish`, as Effect orders tool results),
 * and the calls to known tools are resolved by Effect as usual (tool results before `finish`,
 * approvals, `failureMode`). `Prompt.fromResponseParts` over the collected parts (as `Chat` does)
 * gives the call and its failed result.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const errors = ToolCallRecovery.streamText({ prompt: "Hi", unknownToolCalls: "return" }).pipe(
 *   Stream.filter(ToolCallRecovery.isToolCallErrorPart),
 *   Stream.runCollect,
 * )
 * ```
 */
export function streamText<Options extends NoExcessProperties<WithoutToolkit, Options>>(
  options: Options & WithoutToolkit,
): Stream.Stream<
  | Response.StreamPart<{}, LanguageModel.ExtractToolParametersModeWithoutToolkit<Options>>
  | ReturnedParts<ToolCallErrorPartOf<Options>>,
  LanguageModel.ExtractError<Options>,
  LanguageModel.ExtractServices<Options> | LanguageModel.LanguageModel
>

export function streamText<
  Tools extends Record<string, Tool.Any>,
  Options extends NoExcessProperties<WithToolkit<Tools>, Options>,
>(
  options: Options & WithToolkit<Tools>,
): Stream.Stream<
  | Response.StreamPart<Tools, LanguageModel.ExtractToolParametersMode<Options>>
  | ReturnedParts<ToolCallErrorPartOf<Options>>,
  LanguageModel.ExtractError<Options>,
  LanguageModel.ExtractServices<Options> | LanguageModel.LanguageModel
>

export function streamText<Options extends AnyToolkitOption & NoExcessProperties<AnyToolkitOptions, Options>>(
  options: Options &
    LanguageModel.GenerateTextOptions<LanguageModel.ExtractTools<Options>> &
    UnknownToolCallsOptions & { readonly toolkit: Options["toolkit"] },
): Stream.Stream<
  | Response.StreamPart<LanguageModel.ExtractTools<Options>, LanguageModel.ExtractToolParametersMode<Options>>
  | ReturnedParts<ToolCallErrorPartOf<Options>>,
  LanguageModel.ExtractError<Options>,
  LanguageModel.ExtractServices<Options> | LanguageModel.LanguageModel
>
export function streamText(
  options: AnyOptions & UnknownToolCallsOptions,
): Stream.Stream<unknown, unknown, unknown> {
  const { unknownToolCalls, rest } = splitOptions(options)
  const mode = modeOf(unknownToolCalls, rest)
  return Stream.unwrap(
    Effect.map(Effect.service(LanguageModel.LanguageModel), (model) =>
      mode === "effect" ? untyped(model).streamText(rest) : streamReturning(model, rest, mode),
    ),
  )
}

// ---------------------------------------------------------------------------------------------

function splitOptions(options: AnyOptions & UnknownToolCallsOptions): {
  unknownToolCalls: UnknownToolCalls | undefined
  rest: AnyOptions
} {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("tool-rescue: generateText/streamText need an options object")
  }
  const { unknownToolCalls, ...rest } = options
  return { unknownToolCalls: checkUnknownToolCalls(unknownToolCalls), rest }
}

/** The option's value, checked: anything but `"error"`, `"return"` or undefined is API misuse. */
export function checkUnknownToolCalls(value: unknown): UnknownToolCalls | undefined {
  if (value !== undefined && value !== "error" && value !== "return") {
    throw new TypeError(`tool-rescue: unknownToolCalls must be "error" or "return", got ${String(value)}`)
  }
  return value
}

/**
 * The layer form of `unknownToolCalls: "return"` (see `decorate`): the service's methods go
 * through the same paths as {@link generateText} and {@link streamText} with the option, over
 * `service` itself, so `Chat` (which calls the service) gets it; `generateObject` too.
 */
export const returningUnknownToolCalls = (
  service: LanguageModel.LanguageModel,
): LanguageModel.LanguageModel => {
  const inner = untyped(service)
  return typed(
    {
      generateText: (options) =>
        isDeferred(options)
          ? inner.generateText(options)
          : generateReturning(service, options, generateTextMethod, "return"),
      generateObject: (options) =>
        isDeferred(options)
          ? inner.generateObject(options)
          : generateReturning(service, options, generateObjectMethod, "return"),
      streamText: (options) =>
        isDeferred(options) ? inner.streamText(options) : streamReturning(service, options, "return"),
    },
    service,
  )
}
