// biome-ignore-all lint/suspicious/noExplicitAny: Effect's response and tool types are generic over the caller's toolkit; `any` is how Effect itself spells "any toolkit".
import { Context, Effect, type Exit, Schema, type Scope, Stream } from "effect"
import { LanguageModel, Prompt, Response, ResponseIdTracker, Telemetry, type Tool, Toolkit } from "effect/ai"

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
export type ReplaySlot = Response.AllParts<any> | number

/** Tools with opaque params, cached like LanguageModel.ts does, so part schemas are reused. */
const opaqueTools = new WeakMap<Tool.Any, Tool.Any>()

const opaque = (tool: Tool.Any): Tool.Any => {
  let copy = opaqueTools.get(tool)
  if (copy === undefined) {
    copy = tool.setParameters(Schema.Unknown) as Tool.Any
    opaqueTools.set(tool, copy)
  }
  return copy
}

/** `LanguageModel.ts` `UndeclaredToolCallPart`: the deferred decoder's catch-all tool call. */
const UndeclaredToolCallPart = Response.ToolCallPart("", Schema.Unknown).mapFields((fields) => ({
  ...fields,
  name: Schema.String,
}))

type Encode = (part: unknown) => Effect.Effect<unknown, Schema.SchemaError>

/**
 * An encoder for the parts a deferred decode produced: the toolkit's tools with opaque params,
 * plus the undeclared tool call. Decoding its output with Effect's own decoder gives the parts
 * back.
 */
export const makePartEncoder = (tools: Readonly<Record<string, Tool.Any>>, stream: boolean): Encode => {
  const toolkit = Toolkit.make(...Object.values(tools).map(opaque))
  const part = stream ? Response.StreamPart(toolkit) : Response.Part(toolkit)
  return Schema.encodeUnknownEffect(Schema.Union([part, UndeclaredToolCallPart])) as Encode
}

/** Encodes replay slots for the provider hook; placeholders are encoded directly. */
export const encodeSlots = (
  slots: ReadonlyArray<ReplaySlot>,
  encode: Encode,
): Effect.Effect<Array<Response.StreamPartEncoded>, Schema.SchemaError> =>
  Effect.forEach(slots, (slot) =>
    typeof slot === "number"
      ? Effect.succeed({
          type: "response-metadata",
          metadata: { [PLACEHOLDER]: slot },
        } as Response.StreamPartEncoded)
      : (encode(slot) as Effect.Effect<Response.StreamPartEncoded, Schema.SchemaError>),
  )

/** The marker that ends the replayed parts of a `generateText` response (see {@link isResultsMarker}). */
export const resultsMarker: Response.PartEncoded = {
  type: "response-metadata",
  metadata: { [RESULTS_MARKER]: true },
}

/** The slot of a placeholder (an index into the per-call table of error parts), or undefined. */
export const placeholderSlot = (part: { readonly type: string }): number | undefined => {
  if (part.type !== "response-metadata") return undefined
  const slot = (part as Response.ResponseMetadataPart).metadata[PLACEHOLDER]
  return typeof slot === "number" ? slot : undefined
}

/** Whether a replayed part is the {@link resultsMarker}. */
export const isResultsMarker = (part: { readonly type: string }): boolean =>
  part.type === "response-metadata" &&
  (part as Response.ResponseMetadataPart).metadata[RESULTS_MARKER] === true

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
        (hooks.streamText?.() ?? Stream.die("tool-rescue: no replayed stream")) as Stream.Stream<
          Response.StreamPartEncoded,
          never
        >,
    }),
    run,
  ).pipe(Effect.updateContext(omitTracking)) as Effect.Effect<A, E, R>

/** Services the replay must not see: the real request already went through them. */
export const omitTracking = <S>(context: Context.Context<S>): Context.Context<S> =>
  Context.omit(
    ResponseIdTracker.ResponseIdTracker,
    Telemetry.CurrentSpanTransformer,
  )(context) as Context.Context<S>

/**
 * The tool call ids the prompt's approval responses refer to: `LanguageModel` resolves those
 * approvals before it calls the provider, and puts their results first in the content.
 */
export const approvalToolCallIds = (prompt: Prompt.Prompt): ReadonlySet<string> => {
  const requests = new Map<string, string>()
  const responded: string[] = []
  for (const message of prompt.content) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool-approval-request") requests.set(part.approvalId, part.toolCallId)
      }
    } else if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type === "tool-approval-response") responded.push(part.approvalId)
      }
    }
  }
  const ids = new Set<string>()
  for (const approvalId of responded) {
    const toolCallId = requests.get(approvalId)
    if (toolCallId !== undefined) ids.add(toolCallId)
  }
  return ids
}

/** The final result of an approved call that `LanguageModel` ran before calling the provider. */
export interface ApprovedResult {
  readonly id: string
  readonly name: string
  readonly result: Tool.HandlerResult<any>
}

/**
 * Wraps a toolkit so that the approved calls `LanguageModel` runs before the provider call are
 * recorded. The replay must not run them a second time: its prompt gets their results.
 */
export const recordApprovedCalls = (
  toolkit: Toolkit.WithHandler<any>,
): { readonly toolkit: Toolkit.WithHandler<any>; readonly approved: ApprovedResult[] } => {
  const approved: ApprovedResult[] = []
  const handle = ((name: string, params: unknown, toolCallId?: string, options?: unknown) =>
    Effect.map(
      (toolkit.handle as (...args: unknown[]) => Effect.Effect<Stream.Stream<Tool.HandlerResult<any>>>)(
        name,
        params,
        toolCallId,
        options,
      ),
      Stream.tap((result: Tool.HandlerResult<any>) =>
        Effect.sync(() => {
          if (!result.preliminary && toolCallId !== undefined) approved.push({ id: toolCallId, name, result })
        }),
      ),
    )) as Toolkit.WithHandler<any>["handle"]
  return { toolkit: { tools: toolkit.tools, handle }, approved }
}

/** The stream form of an approved result (LanguageModel.ts `preResolvedStreamParts`). */
export const approvedStreamPart = ({ id, name, result }: ApprovedResult): Response.StreamPart<any> =>
  Response.makePart("tool-result", {
    id,
    name,
    providerExecuted: false,
    preliminary: false,
    result: result.encodedResult,
    encodedResult: result.encodedResult,
    ...(result.modelOutput === undefined ? {} : { modelOutput: result.modelOutput }),
    isFailure: result.isFailure,
  }) as Response.StreamPart<any>

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
    let head: Exit.Exit<unknown, unknown> | undefined = yield* Effect.exit(pull)
    const rest = Effect.suspend(() => {
      if (head === undefined) return pull
      const first = head
      head = undefined
      return first as typeof pull
    })
    return Stream.fromPull(Effect.succeed(rest)) as Stream.Stream<A, E>
  })
