// biome-ignore-all lint/suspicious/noExplicitAny: Effect's response and tool types are generic over the caller's toolkit; `any` is how Effect itself spells "any toolkit".
import type {
  UnknownToolCalls as RecoveryUnknownToolCalls,
  ToolCallErrorPartFor,
} from "@tool-rescue/recovery"
import { Effect, type Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, type Response, type Tool, type Toolkit } from "effect/ai"
import type { NoExcessProperties } from "effect/Types"
import { type Classifier, classifyToolCall, type RawToolCall } from "./classify-tool-calls.ts"
import {
  approvalToolCallIds,
  approvedStreamPart,
  encodeSlots,
  isResultsMarker,
  makePartEncoder,
  omitTracking,
  placeholderSlot,
  promptWithApproved,
  type ReplaySlot,
  recordApprovedCalls,
  resultsMarker,
  startEagerly,
  withReplayModel,
} from "./replay-resolution.ts"
import { resolveToolkit } from "./resolve-toolkit.ts"
import {
  callPartOf,
  isToolCallErrorPart,
  resultPartOf,
  type ToolCallErrorCallPart,
  type ToolCallErrorPart,
  type ToolCallErrorResultPart,
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
export const generateText: {
  <Options extends NoExcessProperties<WithoutToolkit, Options>>(
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
  <Tools extends Record<string, Tool.Any>, Options extends NoExcessProperties<WithToolkit<Tools>, Options>>(
    options: Options & WithToolkit<Tools>,
  ): Effect.Effect<
    GenerateTextResponse<
      Tools,
      LanguageModel.ExtractToolParametersMode<Options>,
      ToolCallErrorPartOf<Options>
    >,
    LanguageModel.ExtractError<Options>,
    LanguageModel.LanguageModel | LanguageModel.ExtractServices<Options>
  >
  <
    Options extends {
      readonly toolkit: LanguageModel.ToolkitOption<any>
    } & NoExcessProperties<LanguageModel.GenerateTextOptions<any> & UnknownToolCallsOptions, Options>,
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
} = ((options: AnyOptions) => {
  const { unknownToolCalls, rest } = splitOptions(options)
  const mode = modeOf(unknownToolCalls, rest)
  return Effect.flatMap(Effect.service(LanguageModel.LanguageModel), (model) =>
    mode === "effect"
      ? Effect.map(
          untyped(model).generateText(rest),
          (response) => new ToolCallRecoveryResponse(response.content),
        )
      : generateReturning(model, rest, "generateText", mode),
  )
}) as never

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
export const streamText: {
  <Options extends NoExcessProperties<WithoutToolkit, Options>>(
    options: Options & WithoutToolkit,
  ): Stream.Stream<
    | Response.StreamPart<{}, LanguageModel.ExtractToolParametersModeWithoutToolkit<Options>>
    | ReturnedParts<ToolCallErrorPartOf<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options> | LanguageModel.LanguageModel
  >
  <Tools extends Record<string, Tool.Any>, Options extends NoExcessProperties<WithToolkit<Tools>, Options>>(
    options: Options & WithToolkit<Tools>,
  ): Stream.Stream<
    | Response.StreamPart<Tools, LanguageModel.ExtractToolParametersMode<Options>>
    | ReturnedParts<ToolCallErrorPartOf<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options> | LanguageModel.LanguageModel
  >
  <
    Options extends {
      readonly toolkit: LanguageModel.ToolkitOption<any>
    } & NoExcessProperties<LanguageModel.GenerateTextOptions<any> & UnknownToolCallsOptions, Options>,
  >(
    options: Options &
      LanguageModel.GenerateTextOptions<LanguageModel.ExtractTools<Options>> &
      UnknownToolCallsOptions & { readonly toolkit: Options["toolkit"] },
  ): Stream.Stream<
    | Response.StreamPart<
        LanguageModel.ExtractTools<Options>,
        LanguageModel.ExtractToolParametersMode<Options>
      >
    | ReturnedParts<ToolCallErrorPartOf<Options>>,
    LanguageModel.ExtractError<Options>,
    LanguageModel.ExtractServices<Options> | LanguageModel.LanguageModel
  >
} = ((options: AnyOptions) => {
  const { unknownToolCalls, rest } = splitOptions(options)
  const mode = modeOf(unknownToolCalls, rest)
  return Stream.unwrap(
    Effect.map(Effect.service(LanguageModel.LanguageModel), (model) =>
      mode === "effect" ? untyped(model).streamText(rest) : streamReturning(model, rest, mode),
    ),
  )
}) as never

// ---------------------------------------------------------------------------------------------

type AnyOptions = LanguageModel.GenerateTextOptions<any> & UnknownToolCallsOptions
type BaseOptions = LanguageModel.GenerateTextOptions<any>
type AnyEffect<A> = Effect.Effect<A, unknown, unknown>

/**
 * The service's methods without their overloads: internally the options are not literal, and the
 * result types are the caller's (declared on the accessors).
 */
export interface UntypedModel {
  readonly generateText: (options: BaseOptions) => AnyEffect<LanguageModel.GenerateTextResponse<any, any>>
  readonly generateObject: (
    options: BaseOptions,
  ) => AnyEffect<LanguageModel.GenerateObjectResponse<any, unknown>>
  readonly streamText: (
    options: BaseOptions,
  ) => Stream.Stream<Response.StreamPart<any, any>, unknown, unknown>
}

export const untyped = (model: LanguageModel.LanguageModel): UntypedModel => model as unknown as UntypedModel

/** The runtime class of our responses: Effect's, plus `toolCallErrors`. */
class ToolCallRecoveryResponse extends LanguageModel.GenerateTextResponse<any, any> {
  get toolCallErrors(): Array<ToolCallErrorPart> {
    return (this.content as unknown[]).filter(isToolCallErrorPart)
  }
}

/** The same for `generateObject`: Effect's `GenerateObjectResponse`, plus `toolCallErrors`. */
class ToolCallRecoveryObjectResponse extends LanguageModel.GenerateObjectResponse<any, unknown, any> {
  get toolCallErrors(): Array<ToolCallErrorPart> {
    return (this.content as unknown[]).filter(isToolCallErrorPart)
  }
}

/**
 * The layer form of `unknownToolCalls: "return"` (see `decorate`): the service's methods go
 * through the same paths as {@link generateText} and {@link streamText} with the option, over
 * `service` itself, so `Chat` (which calls the service) gets it; `generateObject` too.
 */
export const returningUnknownToolCalls = (
  service: LanguageModel.LanguageModel,
): LanguageModel.LanguageModel =>
  ({
    [LanguageModel.TypeId]: LanguageModel.TypeId,
    supportsSystemMessagesInHistory: service.supportsSystemMessagesInHistory,
    generateText: (options: BaseOptions) =>
      isDeferred(options)
        ? untyped(service).generateText(options)
        : generateReturning(service, options, "generateText", "return"),
    generateObject: (options: BaseOptions) =>
      isDeferred(options)
        ? untyped(service).generateObject(options)
        : generateReturning(service, options, "generateObject", "return"),
    streamText: (options: BaseOptions) =>
      isDeferred(options)
        ? untyped(service).streamText(options)
        : streamReturning(service, options, "return"),
  }) as unknown as LanguageModel.LanguageModel

function splitOptions(options: AnyOptions): {
  unknownToolCalls: UnknownToolCalls | undefined
  rest: BaseOptions
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

/** With deferred validation the caller validates every call itself: the option has nothing to do. */
const isDeferred = (options: BaseOptions): boolean =>
  options.disableToolCallResolution === true && options.toolCallValidation === "deferred"

/**
 * How a call is served:
 * - `"effect"`: by Effect alone (the default option with resolution on, or deferred validation);
 * - `"return"`: unknown calls answered, described by error parts;
 * - `"validate"`: the default option with `disableToolCallResolution: true`: a known tool's
 *   invalid params follow its `failureMode` (as Effect-TS/effect #7574 does for any option, where
 *   Effect 4.1 fails with a bare `InvalidOutputError`): `"return"` gives the call and its failed
 *   result, with no error part (the types are Effect's); an unknown name fails the operation,
 *   with the Toolkit's `ToolNotFoundError`.
 */
type Mode = "effect" | "return" | "validate"

const modeOf = (unknownToolCalls: UnknownToolCalls | undefined, options: BaseOptions): Mode => {
  if (isDeferred(options)) return "effect"
  if (unknownToolCalls === "return") return "return"
  return options.disableToolCallResolution === true ? "validate" : "effect"
}

/** The part of the setup both accessors share. */
interface Setup {
  readonly toolkit: Toolkit.WithHandler<any> | undefined
  readonly classifier: Classifier
  /** The first call's options: every call comes back, raw, for us to classify. */
  readonly deferredOptions: BaseOptions
  readonly recorder: ReturnType<typeof recordApprovedCalls> | undefined
}

const setup = (options: BaseOptions, mode: Exclude<Mode, "effect">): AnyEffect<Setup> =>
  Effect.gen(function* () {
    // Resolved once and handed on: an `Effect` toolkit would otherwise run twice.
    const toolkit = yield* resolveToolkit(options.toolkit)
    const tools: Record<string, Tool.Any> = toolkit?.tools ?? {}
    const resolution = options.disableToolCallResolution !== true && Object.keys(tools).length > 0
    const recorder = resolution && toolkit !== undefined ? recordApprovedCalls(toolkit) : undefined
    return {
      toolkit,
      classifier: { tools, resolution, errorParts: mode === "return" },
      recorder,
      deferredOptions: {
        ...options,
        toolkit: recorder?.toolkit ?? toolkit,
        disableToolCallResolution: true,
        toolCallValidation: "deferred",
      },
    }
  })

/** Classifies a part: tool calls may become error parts; everything else stays. */
const classifyPart = <P extends { readonly type: string }>(
  part: P,
  classifier: Classifier,
): Effect.Effect<P | ToolCallErrorPart, AiError.AiError> =>
  part.type !== "tool-call"
    ? Effect.succeed(part)
    : Effect.flatMap(
        classifyToolCall(part as unknown as RawToolCall, classifier) as Effect.Effect<
          P | ToolCallErrorPart,
          AiError.AiError
        >,
        (classified) =>
          // Without error parts no call to an unknown tool can be answered: it fails the operation.
          isToolCallErrorPart(classified) &&
          !classifier.errorParts &&
          classified.error.reason._tag === "ToolNotFoundError"
            ? Effect.fail(classified.error)
            : Effect.succeed(classified),
      )

/** Classifies a run of parts into replay slots; error parts are registered in `errors`. */
const toSlots = (
  parts: ReadonlyArray<Response.AllParts<any>>,
  classifier: Classifier,
  errors: Map<number, ToolCallErrorPart>,
): Effect.Effect<Array<ReplaySlot>, AiError.AiError> =>
  Effect.forEach(parts, (part) =>
    Effect.map(classifyPart(part, classifier), (classified): ReplaySlot => {
      if (!isToolCallErrorPart(classified)) return classified
      const slot = errors.size
      errors.set(slot, classified)
      return slot
    }),
  )

const invalidOutput = (method: string) => (error: Schema.SchemaError) =>
  AiError.make({
    module: "ToolCallRecovery",
    method,
    reason: AiError.InvalidOutputError.fromSchemaError(error),
  })

/** Effect's non-streaming methods, which both end in a response of content parts. */
type GenerateMethod = "generateText" | "generateObject"

/** The response of `method`: Effect's class for it, plus `toolCallErrors`. */
const responseOf = (
  method: GenerateMethod,
  first: LanguageModel.GenerateTextResponse<any, any>,
  content: ReadonlyArray<unknown>,
): ToolCallRecoveryResponse =>
  method === "generateObject"
    ? new ToolCallRecoveryObjectResponse(
        (first as LanguageModel.GenerateObjectResponse<any, unknown>).value,
        [...content] as never,
      )
    : new ToolCallRecoveryResponse([...content] as never)

const generateReturning = (
  model: LanguageModel.LanguageModel,
  options: BaseOptions,
  method: GenerateMethod,
  mode: Exclude<Mode, "effect">,
): AnyEffect<ToolCallRecoveryResponse> =>
  Effect.gen(function* () {
    const { toolkit, classifier, deferredOptions, recorder } = yield* setup(options, mode)
    const first = yield* untyped(model)[method](deferredOptions)
    if (recorder === undefined || toolkit === undefined) {
      // No replay: Effect resolves nothing, the failed results simply follow the content.
      const classified = yield* Effect.forEach(first.content, (part) => classifyPart(part, classifier))
      const errors = classified.filter(isToolCallErrorPart)
      return responseOf(method, first, [
        ...classified.flatMap(
          (part): Array<unknown> =>
            !isToolCallErrorPart(part)
              ? [part]
              : classifier.errorParts
                ? [callPartOf(part), part]
                : [callPartOf(part)],
        ),
        ...errors.map(resultPartOf),
      ])
    }
    // LanguageModel resolved the prompt's approvals before calling the provider and put their
    // results first: the approved ones are kept (the replay must not run them again), the
    // denied ones are dropped (the replay builds them again, in the same place).
    const approvalIds = approvalToolCallIds(Prompt.make(options.prompt))
    const recorded = new Set(recorder.approved.map((result) => result.id))
    const approved: Response.AnyPart[] = []
    const body: Response.AllParts<any>[] = []
    for (const part of first.content) {
      if (part.type === "tool-result" && part.providerExecuted !== true && approvalIds.has(part.id)) {
        if (recorded.has(part.id)) approved.push(part)
      } else {
        body.push(part)
      }
    }
    // Every part is classified before any handler runs: a failure here runs none.
    const errors = new Map<number, ToolCallErrorPart>()
    const slots = yield* toSlots(body, classifier, errors)
    const encoded = yield* encodeSlots(slots, makePartEncoder(classifier.tools, false)).pipe(
      Effect.mapError(invalidOutput("generateText")),
    )
    // Effect appends its tool results after the replayed parts: the marker keeps that place
    // for the failed results of the error parts.
    if (errors.size > 0) encoded.push(resultsMarker as Response.StreamPartEncoded)
    const second = yield* withReplayModel(
      { generateText: () => Effect.succeed(encoded as Array<Response.PartEncoded>) },
      (replay) =>
        untyped(replay)[method]({
          ...options,
          toolkit,
          prompt: promptWithApproved(options.prompt, approved),
        }),
    )
    return responseOf(method, second, [
      ...approved,
      ...second.content.flatMap((part): Array<unknown> => {
        if (isResultsMarker(part)) return Array.from(errors.values(), resultPartOf)
        const error = errorAt(part, errors)
        return error === undefined ? [part] : [callPartOf(error), error]
      }),
    ])
  })

const streamReturning = (
  model: LanguageModel.LanguageModel,
  options: BaseOptions,
  mode: Exclude<Mode, "effect">,
): Stream.Stream<unknown, unknown, unknown> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const { toolkit, classifier, deferredOptions, recorder } = yield* setup(options, mode)
      const first = untyped(model).streamText(deferredOptions)
      if (recorder === undefined || toolkit === undefined) {
        return Stream.mapArrayEffect(first, (chunk) =>
          Effect.map(
            Effect.forEach(chunk, (part) => classifyPart(part, classifier)),
            // Each part gives one or more: a non-empty chunk stays non-empty.
            (parts) =>
              parts.flatMap(
                (part): Array<unknown> => (isToolCallErrorPart(part) ? answered(part, classifier) : [part]),
              ) as unknown as readonly [unknown, ...unknown[]],
          ),
        ) as Stream.Stream<unknown, unknown, unknown>
      }
      // The first request runs the prompt's approved calls in its setup: finish that setup
      // before the replay's own looks at the prompt, which then holds their results.
      const started = yield* startEagerly(first)
      const approved = recorder.approved.map(approvedStreamPart)
      const errors = new Map<number, ToolCallErrorPart>()
      const encode = makePartEncoder(classifier.tools, true)
      // Chunk by chunk, so that Effect's one-chunk lookahead before running handlers holds.
      const replayed = Stream.mapArrayEffect(started, (chunk) =>
        Effect.flatMap(
          toSlots(chunk, classifier, errors),
          (slots) =>
            // One encoded part per decoded part: the chunk stays non-empty.
            Effect.mapError(
              encodeSlots(slots, encode),
              invalidOutput("streamText"),
            ) as unknown as Effect.Effect<
              readonly [Response.StreamPartEncoded, ...Response.StreamPartEncoded[]],
              AiError.AiError
            >,
        ),
      )
      const second = yield* withReplayModel(
        { streamText: () => replayed as Stream.Stream<Response.StreamPartEncoded, unknown, unknown> },
        (replay) =>
          Effect.succeed(
            untyped(replay).streamText({
              ...options,
              toolkit,
              prompt: promptWithApproved(options.prompt, approved),
            }),
          ),
      )
      return Stream.concat(
        Stream.fromIterable(approved),
        second.pipe(
          Stream.updateContext(omitTracking),
          // Each part gives one or more: a non-empty chunk stays non-empty.
          Stream.mapArray(
            (chunk) =>
              chunk.flatMap((part): Array<unknown> => {
                const error = errorAt(part, errors)
                return error === undefined ? [part] : answered(error, classifier)
              }) as unknown as readonly [unknown, ...unknown[]],
          ),
        ),
      ) as Stream.Stream<unknown, unknown, unknown>
    }),
  )

/** The error part a replayed placeholder stands for, or undefined for any other part. */
const errorAt = (
  part: { readonly type: string },
  errors: ReadonlyMap<number, ToolCallErrorPart>,
): ToolCallErrorPart | undefined => {
  const slot = placeholderSlot(part)
  return slot === undefined ? undefined : errors.get(slot)
}

/**
 * An error part in a stream, with the standard parts that come with it: the call where the model
 * made it, then the error part, then the failed result (after the call, before `finish`).
 */
const answered = (error: ToolCallErrorPart, classifier: Classifier): Array<unknown> =>
  classifier.errorParts
    ? [callPartOf(error), error, resultPartOf(error)]
    : [callPartOf(error), resultPartOf(error)]
