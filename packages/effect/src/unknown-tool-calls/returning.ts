import type { UnknownToolCalls } from "@tool-rescue/recovery"
import { Array as Arr, Effect, type Schema, Stream } from "effect"
import { AiError, LanguageModel, Prompt, type Response, type Toolkit } from "effect/ai"
import { approvalToolCallIds, approvedStreamPart, recordApprovedCalls } from "../approved-calls.ts"
import { resolveToolkit } from "../resolve-toolkit.ts"
import { type AnyOptions, type AnyTools, type UntypedModel, untyped } from "../untyped-model.ts"
import { type Classifier, classifyToolCall } from "./classify-tool-calls.ts"
import {
  encodeSlots,
  isResultsMarker,
  makePartEncoder,
  makeStreamPartEncoder,
  omitTracking,
  placeholderSlot,
  promptWithApproved,
  type ReplaySlot,
  resultsMarker,
  startEagerly,
  withReplayModel,
} from "./replay-resolution.ts"
import {
  callPartOf,
  isToolCallErrorPart,
  resultPartOf,
  type ToolCallErrorCallPart,
  type ToolCallErrorPart,
  type ToolCallErrorResultPart,
} from "./tool-call-error-part.ts"

/*
 * How `unknownToolCalls: "return"` is served over Effect 4.1, whose decoder fails on a tool name
 * the toolkit does not hold: the request goes out with deferred validation (every call comes
 * back, raw), the calls are classified here, and Effect's own resolution then runs over the
 * classified parts through a replay (see `replay-resolution.ts`).
 */

/** With deferred validation the caller validates every call itself: the option has nothing to do. */
export const isDeferred = (options: AnyOptions): boolean =>
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
export type Mode = "effect" | "return" | "validate"

export const modeOf = (unknownToolCalls: UnknownToolCalls | undefined, options: AnyOptions): Mode => {
  if (isDeferred(options)) return "effect"
  if (unknownToolCalls === "return") return "return"
  return options.disableToolCallResolution === true ? "validate" : "effect"
}

/** A part of our responses: Effect's parts, and the error parts (with their call and result). */
type ReturnedPart = Response.AnyPart | ToolCallErrorPart | ToolCallErrorCallPart | ToolCallErrorResultPart

/** The error parts of a response's content, in order. */
const errorPartsOf = (content: ReadonlyArray<unknown>): Array<ToolCallErrorPart> =>
  content.filter(isToolCallErrorPart)

/**
 * The content as Effect's response classes take it. Forced: they type their content from the
 * toolkit, with no member for a `tool-call-error` part (the part #7574 adds); at run time they
 * only keep the array.
 */
const asEffectContent = (
  content: Array<ReturnedPart>,
): Array<Response.Part<AnyTools, Response.ToolParametersMode>> =>
  content as Array<Response.Part<AnyTools, Response.ToolParametersMode>>

/** The runtime class of our responses: Effect's, plus `toolCallErrors`. */
class ToolCallRecoveryResponse extends LanguageModel.GenerateTextResponse<
  AnyTools,
  Response.ToolParametersMode
> {
  get toolCallErrors(): Array<ToolCallErrorPart> {
    return errorPartsOf(this.content)
  }
}

/** The same for `generateObject`: Effect's `GenerateObjectResponse`, plus `toolCallErrors`. */
class ToolCallRecoveryObjectResponse extends LanguageModel.GenerateObjectResponse<
  AnyTools,
  unknown,
  Response.ToolParametersMode
> {
  get toolCallErrors(): Array<ToolCallErrorPart> {
    return errorPartsOf(this.content)
  }
}

/** One of Effect's non-streaming methods, which both end in a response of content parts. */
export interface GenerateMethod<
  R extends LanguageModel.GenerateTextResponse<AnyTools, Response.ToolParametersMode>,
> {
  readonly call: (model: UntypedModel, options: AnyOptions) => Effect.Effect<R, unknown, unknown>
  /** Our response for `content`: Effect's class for the method, plus `toolCallErrors`. */
  readonly respond: (response: R, content: Array<ReturnedPart>) => R
}

export const generateTextMethod: GenerateMethod<
  LanguageModel.GenerateTextResponse<AnyTools, Response.ToolParametersMode>
> = {
  call: (model, options) => model.generateText(options),
  respond: (_response, content) => new ToolCallRecoveryResponse(asEffectContent(content)),
}

export const generateObjectMethod: GenerateMethod<
  LanguageModel.GenerateObjectResponse<AnyTools, unknown, Response.ToolParametersMode>
> = {
  call: (model, options) => model.generateObject(options),
  respond: (response, content) =>
    new ToolCallRecoveryObjectResponse(response.value, asEffectContent(content)),
}

/** The part of the setup both accessors share. */
interface Setup {
  readonly toolkit: Toolkit.WithHandler<AnyTools> | undefined
  readonly classifier: Classifier
  /** The first call's options: every call comes back, raw, for us to classify. */
  readonly deferredOptions: AnyOptions
  readonly recorder: ReturnType<typeof recordApprovedCalls> | undefined
}

const setup = (options: AnyOptions, mode: Exclude<Mode, "effect">): Effect.Effect<Setup, unknown, unknown> =>
  Effect.gen(function* () {
    // Resolved once and handed on: an `Effect` toolkit would otherwise run twice.
    const toolkit = yield* resolveToolkit(options.toolkit)
    const tools: AnyTools = toolkit?.tools ?? {}
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
const classifyPart = (
  part: Response.AnyPart,
  classifier: Classifier,
): Effect.Effect<Response.AnyPart | ToolCallErrorPart, AiError.AiError> =>
  part.type !== "tool-call"
    ? Effect.succeed(part)
    : Effect.flatMap(classifyToolCall(part, classifier), (classified) =>
        // Without error parts no call to an unknown tool can be answered: it fails the operation.
        isToolCallErrorPart(classified) &&
        !classifier.errorParts &&
        classified.error.reason._tag === "ToolNotFoundError"
          ? Effect.fail(classified.error)
          : Effect.succeed(classified),
      )

/**
 * Classifies a run of parts into replay slots (one per part, so a non-empty chunk stays
 * non-empty); error parts are registered in `errors`.
 */
const toSlots = <const Parts extends ReadonlyArray<Response.AnyPart>>(
  parts: Parts,
  classifier: Classifier,
  errors: Map<number, ToolCallErrorPart>,
): Effect.Effect<Arr.ReadonlyArray.With<Parts, ReplaySlot>, AiError.AiError> =>
  Effect.forEach(
    parts,
    (part): Effect.Effect<ReplaySlot, AiError.AiError> =>
      Effect.map(classifyPart(part, classifier), (classified) => {
        if (!isToolCallErrorPart(classified)) return classified
        const slot = errors.size
        errors.set(slot, classified)
        return slot
      }),
    // Said, not defaulted: the declared result would otherwise infer `Discard` as `boolean`.
    { discard: false },
  )

const invalidOutput = (method: string) => (error: Schema.SchemaError) =>
  AiError.make({
    module: "ToolCallRecovery",
    method,
    reason: AiError.InvalidOutputError.fromSchemaError(error),
  })

export const generateReturning = <
  R extends LanguageModel.GenerateTextResponse<AnyTools, Response.ToolParametersMode>,
>(
  model: LanguageModel.LanguageModel,
  options: AnyOptions,
  method: GenerateMethod<R>,
  mode: Exclude<Mode, "effect">,
): Effect.Effect<R, unknown, unknown> =>
  Effect.gen(function* () {
    const { toolkit, classifier, deferredOptions, recorder } = yield* setup(options, mode)
    const first = yield* method.call(untyped(model), deferredOptions)
    if (recorder === undefined || toolkit === undefined) {
      // No replay: Effect resolves nothing, the failed results simply follow the content.
      const classified = yield* Effect.forEach(first.content, (part) => classifyPart(part, classifier))
      const errors = classified.filter(isToolCallErrorPart)
      return method.respond(first, [
        ...classified.flatMap(
          (part): Array<ReturnedPart> =>
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
    const body: Response.AnyPart[] = []
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
    const encoded: Array<Response.PartEncoded> = yield* encodeSlots(
      slots,
      makePartEncoder(classifier.tools),
    ).pipe(Effect.mapError(invalidOutput("generateText")))
    // Effect appends its tool results after the replayed parts: the marker keeps that place
    // for the failed results of the error parts.
    if (errors.size > 0) encoded.push(resultsMarker)
    const second = yield* withReplayModel({ generateText: () => Effect.succeed(encoded) }, (replay) =>
      method.call(untyped(replay), {
        ...options,
        toolkit,
        prompt: promptWithApproved(options.prompt, approved),
      }),
    )
    return method.respond(second, [
      ...approved,
      ...second.content.flatMap((part): Array<ReturnedPart> => {
        if (isResultsMarker(part)) return Array.from(errors.values(), resultPartOf)
        const error = errorAt(part, errors)
        return error === undefined ? [part] : [callPartOf(error), error]
      }),
    ])
  })

export const streamReturning = (
  model: LanguageModel.LanguageModel,
  options: AnyOptions,
  mode: Exclude<Mode, "effect">,
): Stream.Stream<ReturnedPart, unknown, unknown> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const { toolkit, classifier, deferredOptions, recorder } = yield* setup(options, mode)
      const first = untyped(model).streamText(deferredOptions)
      if (recorder === undefined || toolkit === undefined) {
        return Stream.mapArrayEffect(first, (chunk) =>
          Effect.map(
            Effect.forEach(chunk, (part) => classifyPart(part, classifier)),
            // Each part gives one or more: a non-empty chunk stays non-empty.
            Arr.flatMap((part) =>
              isToolCallErrorPart(part) ? answered(part, classifier) : Arr.of<ReturnedPart>(part),
            ),
          ),
        )
      }
      // The first request runs the prompt's approved calls in its setup: finish that setup
      // before the replay's own looks at the prompt, which then holds their results.
      const started = yield* startEagerly(first)
      const approved = recorder.approved.map(approvedStreamPart)
      const errors = new Map<number, ToolCallErrorPart>()
      const encode = makeStreamPartEncoder(classifier.tools)
      // Chunk by chunk, so that Effect's one-chunk lookahead before running handlers holds.
      const replayed = Stream.mapArrayEffect(started, (chunk) =>
        Effect.flatMap(toSlots(chunk, classifier, errors), (slots) =>
          Effect.mapError(encodeSlots(slots, encode), invalidOutput("streamText")),
        ),
      )
      const second = yield* withReplayModel({ streamText: () => replayed }, (replay) =>
        Effect.succeed(
          untyped(replay).streamText({
            ...options,
            toolkit,
            prompt: promptWithApproved(options.prompt, approved),
          }),
        ),
      )
      return Stream.concat(
        Stream.fromIterable<ReturnedPart>(approved),
        second.pipe(
          Stream.updateContext(omitTracking),
          // Each part gives one or more: a non-empty chunk stays non-empty.
          Stream.mapArray(
            Arr.flatMap((part) => {
              const error = errorAt(part, errors)
              return error === undefined ? Arr.of<ReturnedPart>(part) : answered(error, classifier)
            }),
          ),
        ),
      )
    }),
  )

/** The error part a replayed placeholder stands for, or undefined for any other part. */
const errorAt = (
  part: Response.AnyPart,
  errors: ReadonlyMap<number, ToolCallErrorPart>,
): ToolCallErrorPart | undefined => {
  const slot = placeholderSlot(part)
  return slot === undefined ? undefined : errors.get(slot)
}

/**
 * An error part in a stream, with the standard parts that come with it: the call where the model
 * made it, then the error part, then the failed result (after the call, before `finish`).
 */
const answered = (error: ToolCallErrorPart, classifier: Classifier): Arr.NonEmptyArray<ReturnedPart> =>
  classifier.errorParts
    ? [callPartOf(error), error, resultPartOf(error)]
    : [callPartOf(error), resultPartOf(error)]
