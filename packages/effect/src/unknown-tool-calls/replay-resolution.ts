import { type Array as Arr, type Cause, Context, Effect, type Exit, Schema, type Scope, Stream } from "effect"
import { LanguageModel, Prompt, Response, ResponseIdTracker, Telemetry, type Tool, Toolkit } from "effect/ai"
import type { AnyTools } from "../untyped-model.ts"

/*
 * Effect's tool resolution (approvals, concurrency, `failureMode`, incomplete finishes, the
 * one-chunk lookahead of streams, tool results before `finish`) is ~400 lines of
 * LanguageModel.ts. Rather than re-implement it, we run it for real: the parts already received
 * from the model are handed, re-encoded, to a LanguageModel built by `LanguageModel.make` whose
 * provider hooks just replay them. No second model request is made. Calls that became
 * `tool-call-error` parts travel through the replay as placeholders (a `response-metadata` part,
 * which Effect passes through untouched) and are swapped back on the way out, in order. In
 * `generateText` one more such part marks the end of the replayed parts: Effect appends its tool
 * results after them, and the failed results of the error parts go there too.
 */

/** The metadata key of a placeholder; its value indexes the per-call table of error parts. */
const PLACEHOLDER = "~tool-rescue/effect/tool-call-error"

/** The metadata key of the marker that ends the replayed parts of a `generateText` response. */
const RESULTS_MARKER = "~tool-rescue/effect/tool-call-error-results"

/** A slot in a replayed response: a decoded part, or the index of a `tool-call-error` part. */
export type ReplaySlot = Response.AnyPart | number

/** Tools with opaque params, cached like LanguageModel.ts does, so part schemas are reused. */
const opaqueTools = new WeakMap<Tool.Any, Tool.Any>()

const opaque = (tool: Tool.Any): Tool.Any => {
  let copy = opaqueTools.get(tool)
  if (copy === undefined) {
    copy = tool.setParameters(Schema.Unknown)
    opaqueTools.set(tool, copy)
  }
  return copy
}

/** `LanguageModel.ts` `UndeclaredToolCallPart`: the deferred decoder's catch-all tool call. */
const UndeclaredToolCallPart = Response.ToolCallPart("", Schema.Unknown).mapFields((fields) => ({
  ...fields,
  name: Schema.String,
}))

/**
 * Encodes one decoded part for the replay's provider hook. It needs what the tools' schemas need
 * (`unknown` for `Tool.Any`): the request's own services, in whose context it runs.
 */
export type Encode<Encoded> = (part: Response.AnyPart) => Effect.Effect<Encoded, Schema.SchemaError, unknown>

/**
 * Encoders for the parts a deferred decode produced: the toolkit's tools with opaque params, plus
 * the undeclared tool call. Decoding their output with Effect's own decoder gives the parts back.
 */
export const makePartEncoder = (tools: Readonly<AnyTools>): Encode<Response.PartEncoded> => {
  const toolkit = Toolkit.make(...Object.values(tools).map(opaque))
  return Schema.encodeUnknownEffect(Schema.Union([Response.Part(toolkit), UndeclaredToolCallPart]))
}

/** The stream form of {@link makePartEncoder}. */
export const makeStreamPartEncoder = (tools: Readonly<AnyTools>): Encode<Response.StreamPartEncoded> => {
  const toolkit = Toolkit.make(...Object.values(tools).map(opaque))
  return Schema.encodeUnknownEffect(Schema.Union([Response.StreamPart(toolkit), UndeclaredToolCallPart]))
}

/**
 * Encodes replay slots for the provider hook (one encoded part per slot, so a non-empty chunk
 * stays non-empty); placeholders are encoded directly.
 */
export const encodeSlots = <const Slots extends ReadonlyArray<ReplaySlot>, Encoded>(
  slots: Slots,
  encode: Encode<Encoded>,
): Effect.Effect<
  Arr.ReadonlyArray.With<Slots, Encoded | Response.ResponseMetadataPartEncoded>,
  Schema.SchemaError,
  unknown
> =>
  Effect.forEach(
    slots,
    (slot): Effect.Effect<Encoded | Response.ResponseMetadataPartEncoded, Schema.SchemaError, unknown> =>
      typeof slot === "number" ? Effect.succeed(placeholder(slot)) : encode(slot),
    // Said, not defaulted: the declared result would otherwise infer `Discard` as `boolean`.
    { discard: false },
  )

const placeholder = (slot: number): Response.ResponseMetadataPartEncoded => ({
  type: "response-metadata",
  metadata: { [PLACEHOLDER]: slot },
})

/** The marker that ends the replayed parts of a `generateText` response (see {@link isResultsMarker}). */
export const resultsMarker: Response.ResponseMetadataPartEncoded = {
  type: "response-metadata",
  metadata: { [RESULTS_MARKER]: true },
}

/** The slot of a placeholder (an index into the per-call table of error parts), or undefined. */
export const placeholderSlot = (part: Response.AnyPart): number | undefined => {
  if (part.type !== "response-metadata") return undefined
  const slot = part.metadata[PLACEHOLDER]
  return typeof slot === "number" ? slot : undefined
}

/** Whether a replayed part is the {@link resultsMarker}. */
export const isResultsMarker = (part: Response.AnyPart): boolean =>
  part.type === "response-metadata" && part.metadata[RESULTS_MARKER] === true

/**
 * Runs `run` against a model whose provider replays `hooks`. The replay sees neither the
 * `ResponseIdTracker` nor the span transformer: the real request already went through them once.
 */
export const withReplayModel = <A, E, R>(
  hooks: {
    readonly generateText?: () => Effect.Effect<Array<Response.PartEncoded>>
    readonly streamText?: () => Stream.Stream<Response.StreamPartEncoded, unknown, unknown>
  },
  run: (model: LanguageModel.LanguageModel) => Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    LanguageModel.make({
      generateText: () => hooks.generateText?.() ?? Effect.die("tool-rescue: no replayed response"),
      streamText: () =>
        // Forced: the replayed stream fails as the first request did (a handler error of an
        // approved call, say) and needs what a tool's schemas need (the request's own services),
        // while a provider hook is typed to fail with an `AiError` and need no service;
        // `LanguageModel` passes any failure of the hook through unchanged.
        (hooks.streamText?.() ?? Stream.die("tool-rescue: no replayed stream")) as Stream.Stream<
          Response.StreamPartEncoded,
          never
        >,
    }),
    run,
  ).pipe(Effect.updateContext((context: Context.Context<R>) => omitTracking(context)))

/** Services the replay must not see: the real request already went through them. */
export const omitTracking = <S>(context: Context.Context<S>): Context.Context<S> =>
  // Forced: `Context.omit` types the rest as lacking the two services, and `S` may name them; no
  // requirement does, though: `LanguageModel` reads both as optional services.
  Context.omit(
    ResponseIdTracker.ResponseIdTracker,
    Telemetry.CurrentSpanTransformer,
  )(context) as Context.Context<S>

/** The replay's prompt: the original plus the results of the approvals already run. */
export const promptWithApproved = (
  prompt: Prompt.RawInput,
  approved: ReadonlyArray<Response.AnyPart>,
): Prompt.RawInput =>
  approved.length === 0 ? prompt : Prompt.concat(Prompt.make(prompt), Prompt.fromResponseParts(approved))

/**
 * Starts a stream at once and pulls its first chunk, so that its setup (where `LanguageModel`
 * runs approved calls) is over before the replay's own setup looks at the prompt.
 */
export const startEagerly = <A, E, R>(
  stream: Stream.Stream<A, E, R>,
): Effect.Effect<Stream.Stream<A, E>, never, R | Scope.Scope> =>
  Effect.gen(function* () {
    const pull = yield* Stream.toPull(stream)
    let head: Exit.Exit<Arr.NonEmptyReadonlyArray<A>, E | Cause.Done> | undefined = yield* Effect.exit(pull)
    const rest = Effect.suspend(() => {
      if (head === undefined) return pull
      const first = head
      head = undefined
      return first
    })
    return Stream.fromPull(Effect.succeed(rest))
  })
