import {
  isToolCallRecoveryError as isRecoveryFailure,
  type NormalizedPart,
  type RecoveryOptions,
  runTurn,
} from "@tool-rescue/recovery"
import {
  createTurnMemory,
  placeInstruction,
  planTurn,
  type RecalledTurn,
  type ResolvedRecoveryOptions,
  recallTurn,
  resolveRecoveryOptions,
  type TurnMemory,
  type TurnPlan,
  type TurnRequest,
  turnKey,
} from "@tool-rescue/recovery/adapter"
import { type Context, Effect, Exit, Layer, Option, Stream } from "effect"
import { LanguageModel, Prompt, type Response, ResponseIdTracker, type Toolkit } from "effect/ai"
import { approvalToolCallIds, approvedStreamPart, recordApprovedCalls } from "./approved-calls.ts"
import { attemptStream } from "./attempt-stream.ts"
import { InnerFailure } from "./inner-failure.ts"
import { promptOperations } from "./prompt-operations.ts"
import { resolveToolkit } from "./resolve-toolkit.ts"
import {
  type ContentPart,
  makeContentCollector,
  makeStreamSplicer,
  normalizeContent,
  type StreamPart,
} from "./splice-parts.ts"
import { toAiError } from "./tool-call-recovery-error.ts"
import { readTurnMark } from "./turn-mark.ts"
import { turnStream } from "./turn-stream.ts"
import {
  checkUnknownToolCalls,
  honouringUnknownToolCalls,
  type UnknownToolCallsOptions,
} from "./unknown-tool-calls/index.ts"
import { type AnyOptions, type AnyTools, typed, type UntypedModel, untyped } from "./untyped-model.ts"

/**
 * Options of the decorator: the shared options of `@tool-rescue/recovery` for the markup
 * recovery (policy, `maxRecoveries`, `recoveryScope`, `instructionPlacement`, `instruction`,
 * `formats`, `persistFailed`, `onEvent`), and `unknownToolCalls` (see
 * {@link UnknownToolCallsOptions}): `"return"` gives every call of the decorated service —
 * `Chat`'s included, and `generateObject` — the behaviour of the `generateText` / `streamText`
 * accessors with that option.
 *
 * @example
 * ```ts
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const options: ToolCallRecovery.Options = { maxRecoveries: 1, unknownToolCalls: "return" }
 * ```
 */
export type Options = RecoveryOptions & UnknownToolCallsOptions

/**
 * Decorates a `LanguageModel` service with tool-call recovery. `streamText` and `generateText`
 * withhold tool-call markup the model wrote as text and, when the response has no structured
 * tool call but recoverable markup, call the service again once with the original prompt plus a
 * host instruction (merged into the leading system message by default), without the malformed
 * response. The turn contract of `@tool-rescue/recovery`'s planner holds:
 *
 * - one recovery per user turn (a `Chat` send, or the agent loop after one user message): the
 *   recovered response's parts carry a mark the history keeps, and a second malformed response
 *   in the turn fails with an `AiError` from module `ToolCallRecovery` (see
 *   {@link isToolCallRecoveryError}) without a retry request;
 * - a retry never repeats an action: the approvals Effect resolved before the first call (an
 *   approved handler run, a denial) are sent to the retry as already answered;
 * - `generateText` keeps nothing of the malformed response; provider errors are final;
 *   requests without tools or with `toolChoice: "none"` pass through; interruption stops
 *   recovery (no new request starts);
 * - the bound holds under `Effect.retry` (which retries every failure unless told otherwise): a
 *   call run again after it failed gets the same error with no request, or the budget it already
 *   spent (for a minute, by its prompt and tools; an answered call is forgotten).
 *
 * `generateObject` is not recovered: its answer is JSON text, not a tool call. With
 * `unknownToolCalls: "return"` every method also answers calls to unknown tools with failed tool
 * results (see {@link Options}).
 *
 * Pure: the same service in, a service of the same type out. {@link layer} and
 * {@link withRecovery} are built on it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const recovering = Effect.map(Effect.service(LanguageModel.LanguageModel), ToolCallRecovery.decorate())
 * ```
 */
export function decorate(
  options?: Options,
): (service: LanguageModel.LanguageModel) => LanguageModel.LanguageModel {
  // API misuse (an invalid option) throws here, where the decorator is built, not mid-request.
  const resolved = resolveRecoveryOptions(options)
  const byDefault = checkUnknownToolCalls(options?.unknownToolCalls) ?? "error"
  // The turns that ended without an answer, shared by every service this decorator makes:
  // `Effect.retry` re-runs an effect whose service `withRecovery` decorates again on each run.
  const settings: Settings = { resolved, memory: createTurnMemory() }
  return (service) => {
    const inner = untyped(service)
    const recovering = typed(
      {
        generateText: (request) => recoverGenerate(inner, request, settings),
        generateObject: inner.generateObject,
        streamText: (request) => recoverStream(inner, request, settings),
      },
      service,
    )
    // Unknown calls are classified over the recovering service: markup is recovered first (no
    // call runs in that request), then Effect resolves the calls of the recovered response once.
    // A request's own `unknownToolCalls` (which `Chat` forwards) wins over the decorator's.
    return honouringUnknownToolCalls({ fallback: byDefault })(recovering)
  }
}

/**
 * A layer that decorates the `LanguageModel` it is given (see {@link decorate}). Compose it on
 * top of a provider's model layer with `Layer.provideMerge`, which keeps the provider's
 * `ProviderName` and `ModelName` while the decorated `LanguageModel` wins; `Chat` and every
 * `LanguageModel.*` accessor then recover.
 *
 * @example
 * ```ts
 * import { Effect, Layer, Stream } from "effect"
 * import { LanguageModel } from "effect/ai"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * declare const ProviderModel: Layer.Layer<LanguageModel.LanguageModel>
 *
 * const Model = ToolCallRecovery.layer().pipe(Layer.provideMerge(ProviderModel))
 * const program = LanguageModel.generateText({ prompt: "Read src/a.ts" }).pipe(Effect.provide(Model))
 * ```
 */
export function layer(
  options?: Options,
): Layer.Layer<LanguageModel.LanguageModel, never, LanguageModel.LanguageModel> {
  const apply = decorate(options)
  return Layer.effect(
    LanguageModel.LanguageModel,
    Effect.map(Effect.service(LanguageModel.LanguageModel), apply),
  )
}

/**
 * The per-call form: decorates the `LanguageModel` for one effect or stream only.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "effect/ai"
 * import { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * const answer = LanguageModel.generateText({ prompt: "Read src/a.ts" }).pipe(
 *   ToolCallRecovery.withRecovery({ instructionPlacement: "user" }),
 * )
 * ```
 */
export function withRecovery(
  options?: Options,
): <Self extends Effect.Effect<unknown, unknown, unknown> | Stream.Stream<unknown, unknown, unknown>>(
  self: Self,
) => WithRecovery<Self> {
  const apply = decorate(options)
  // Forced: the conditional `WithRecovery<Self>` cannot be checked against a body that is not
  // generic; each branch keeps its input's type and adds the `LanguageModel` requirement.
  return ((self: Effect.Effect<unknown> | Stream.Stream<unknown>) =>
    Stream.isStream(self)
      ? Stream.updateService(self, LanguageModel.LanguageModel, apply)
      : Effect.updateService(self, LanguageModel.LanguageModel, apply)) as never
}

/**
 * What {@link withRecovery} returns for an effect or a stream: the same, now also requiring the
 * `LanguageModel` it decorates.
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { LanguageModel } from "effect/ai"
 * import type { ToolCallRecovery } from "@tool-rescue/effect"
 *
 * type Recovering = ToolCallRecovery.WithRecovery<Effect.Effect<string, never, never>>
 * // Effect.Effect<string, never, LanguageModel.LanguageModel>
 * ```
 */
export type WithRecovery<Self> =
  Self extends Stream.Stream<infer A, infer E, infer R>
    ? Stream.Stream<A, E, R | LanguageModel.LanguageModel>
    : Self extends Effect.Effect<infer A, infer E, infer R>
      ? Effect.Effect<A, E, R | LanguageModel.LanguageModel>
      : never

// ---------------------------------------------------------------------------------------------

type Request = AnyOptions
type Inner = UntypedModel

/** What every call of a decorator shares. */
interface Settings {
  readonly resolved: ResolvedRecoveryOptions
  /**
   * The turns that ended without an answer, by their prompt and tools: `Effect.retry({ times })`
   * (or a `Schedule`) re-runs a failed call whatever its error, and a re-run must not buy a fresh
   * budget. It gets the error its turn ended with, with no request, or the budget it spent.
   */
  readonly memory: TurnMemory
}

interface Turn {
  /** The request with the toolkit resolved once (see {@link resolveToolkit}). */
  readonly request: Request
  readonly prompt: Prompt.Prompt
  /** What `@tool-rescue/recovery`'s planner makes of the request. */
  readonly plan: TurnPlan
  /**
   * The tool calls whose approval the prompt answers: `LanguageModel` resolves those before it
   * calls the provider (running the approved ones) and puts their results first.
   */
  readonly approvals: ReadonlySet<string>
  /**
   * Records the results of the approved calls `LanguageModel` runs: with
   * `disableToolCallResolution: true` its `streamText` runs them without emitting their results.
   */
  readonly recorder: ReturnType<typeof recordApprovedCalls> | undefined
  readonly context: Context.Context<never>
  /** What earlier runs of the same turn left in the memory (see {@link Settings}). */
  readonly recalled: RecalledTurn
}

/** Resolves what every attempt shares, and plans the turn. */
const prepare = (request: Request, { resolved, memory }: Settings): Effect.Effect<Turn, unknown, unknown> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<never>()
    const toolkit = yield* resolveToolkit(request.toolkit)
    const prompt = Prompt.make(request.prompt)
    const tools = offeredTools(toolkit, request)
    // A re-run repeats its prompt and tools: the prompt's JSON is its messages and parts (the
    // turn mark included), with no identity of its own.
    const recalled = recallTurn(memory, () => turnKey({ prompt, tools }))
    const plan = planTurn(resolved, {
      tools,
      toolChoice: toolChoiceKind(request.toolChoice),
      recoveriesBefore: readTurnMark(prompt) + recalled.spent,
    })
    const approvals = approvalToolCallIds(prompt)
    const recorder =
      toolkit !== undefined && approvals.size > 0 && plan.kind === "recover"
        ? recordApprovedCalls(toolkit)
        : undefined
    return {
      request: { ...request, toolkit: recorder?.toolkit ?? toolkit, prompt },
      prompt,
      plan,
      approvals,
      recorder,
      context,
      recalled,
    }
  })

/** The names of the tools sent with the request (a `oneOf` tool choice narrows them). */
function offeredTools(toolkit: Toolkit.WithHandler<AnyTools> | undefined, request: Request): string[] {
  if (toolkit === undefined) return []
  const names = Object.values(toolkit.tools).map((tool): string => tool.name)
  const choice = request.toolChoice
  return typeof choice === "object" && "oneOf" in choice
    ? names.filter((name) => choice.oneOf.includes(name))
    : names
}

/** Effect's tool choice by kind, as the planner reads it. */
function toolChoiceKind(choice: Request["toolChoice"]): TurnRequest["toolChoice"] {
  if (choice === undefined || typeof choice === "string") return choice
  if ("tool" in choice) return "tool"
  return choice.mode === "required" ? "required" : "auto"
}

/**
 * Whether a part of the first attempt is the result of an approval `LanguageModel` resolved
 * before it called the provider (not a result of the model's own calls, whose ids are new).
 */
const resolvedBefore =
  (turn: Turn) =>
  (part: Response.AnyPart): boolean =>
    part.type === "tool-result" && part.providerExecuted !== true && turn.approvals.has(part.id)

/**
 * A retry's request: the original prompt (never the malformed response) with the results of the
 * approvals the first attempt resolved — so `LanguageModel` finds them answered and neither runs
 * an approved call again nor repeats a denial — plus the host instruction. The results are the
 * ones the first attempt emitted, and those of approved calls it ran without emitting them.
 */
const retryRequest = (
  turn: Turn,
  emitted: ReadonlyArray<Response.AnyPart>,
  instruction: string,
  placement: "system" | "user",
): Request => {
  // `emitted` holds the results `resolvedBefore` picked: tool results only.
  const seen = new Set(emitted.flatMap((part) => (part.type === "tool-result" ? [part.id] : [])))
  const unseen = (turn.recorder?.approved ?? []).filter(({ id }) => turn.approvals.has(id) && !seen.has(id))
  const resolved = [...emitted, ...unseen.map(approvedStreamPart)]
  const prompt =
    resolved.length === 0 ? turn.prompt : Prompt.concat(turn.prompt, Prompt.fromResponseParts(resolved))
  return { ...turn.request, prompt: placeInstruction(prompt, instruction, placement, promptOperations) }
}

/** Passes the attempt's parts on, keeping the results of the approvals resolved before the call. */
async function* recordResolved<Raw extends { readonly type: string }>(
  parts: AsyncIterable<NormalizedPart<Raw>>,
  isResolved: (part: Raw) => boolean,
  resolved: Raw[],
): AsyncGenerator<NormalizedPart<Raw>, void, undefined> {
  for await (const part of parts) {
    if (part.type === "other" && isResolved(part.raw)) resolved.push(part.raw)
    yield part
  }
}

/**
 * Before a retry: with a `ResponseIdTracker` (incremental prompts, e.g. OpenAI Responses), the
 * first request marked the whole prompt as sent with the malformed response's id, so a retry
 * could be sent as "continue from that response" — the malformed response included. Forgetting
 * the marks sends the retry in full, without it (the tracker's own fallback when it cannot chain).
 */
const forgetSentParts: Effect.Effect<void> = Effect.map(
  Effect.serviceOption(ResponseIdTracker.ResponseIdTracker),
  Option.map((tracker) => tracker.clearUnsafe()),
)

/**
 * A retry's provider error, made final. The idiom `Effect.retry({ while: (e) => e.isRetryable })`
 * around a call re-ran the whole call on the retry's retryable `AiError` (an HTTP 503): its first
 * request again, with a fresh budget. Provider errors are final: `isRetryable` (the error's and
 * its reason's getters) reads false on this error, whose reason, tag and fields stay the provider's.
 */
function finalError<E>(error: E): E {
  for (const target of [error, (error as { reason?: unknown } | null)?.reason]) {
    if (typeof target === "object" && target !== null && Reflect.get(target, "isRetryable") === true)
      Reflect.defineProperty(target, "isRetryable", { value: false })
  }
  return error
}

/** Maps what escapes `runTurn` to the stream's failure. */
const failure = (method: string) => (error: unknown) => {
  if (error instanceof InnerFailure) return Exit.failCause(error.cause)
  if (isRecoveryFailure(error)) return Exit.fail(toAiError(error, method))
  // Invalid options or a bug: a defect, as in Effect.
  return Exit.die(error)
}

const recoverStream = (
  inner: Inner,
  request: Request,
  settings: Settings,
): Stream.Stream<StreamPart, unknown, unknown> =>
  Stream.unwrap(
    Effect.map(prepare(request, settings), (turn) => {
      const { plan, recalled } = turn
      if (plan.kind === "skip") return inner.streamText(turn.request)
      if (recalled.error !== undefined) return Stream.fromEffect(failure("streamText")(recalled.error))
      // Aborted when the stream ends for any reason: if it is interrupted while `runTurn` awaits
      // the model, the in-flight attempt is interrupted at once and no retry starts.
      const controller = new AbortController()
      const resolved: StreamPart[] = []
      const run = runTurn<StreamPart>(plan, {
        // Effect providers end every complete stream with a `finish` part: one that ends
        // without it was cut short.
        finishRequired: true,
        // What an abandoned attempt released stays shown: the retry continues after it.
        streaming: true,
        signal: controller.signal,
        attempt: (_round, { instruction, signal }) => {
          if (instruction === undefined) {
            const isResolved = resolvedBefore(turn)
            return attemptStream(inner.streamText(turn.request), turn.context, signal, (part) => {
              if (isResolved(part)) resolved.push(part)
            })
          }
          const retry = retryRequest(turn, resolved, instruction, plan.placement)
          const stream = Stream.unwrap(Effect.as(forgetSentParts, inner.streamText(retry)))
          return attemptStream(Stream.mapError(stream, finalError), turn.context, signal)
        },
      })
      return turnStream(recalled.record(run), makeStreamSplicer(plan.recoveriesBefore)).pipe(
        Stream.catch((error) => Stream.fromEffect(failure("streamText")(error))),
        Stream.ensuring(Effect.sync(() => controller.abort())),
      )
    }),
  )

const recoverGenerate = (
  inner: Inner,
  request: Request,
  settings: Settings,
): Effect.Effect<
  LanguageModel.GenerateTextResponse<AnyTools, Response.ToolParametersMode>,
  unknown,
  unknown
> =>
  Effect.flatMap(prepare(request, settings), (turn) => {
    const { plan, recalled } = turn
    if (plan.kind === "skip") return inner.generateText(turn.request)
    if (recalled.error !== undefined) return failure("generateText")(recalled.error)
    return Effect.flatten(
      Effect.promise(async (interrupted) => {
        const resolved: ContentPart[] = []
        const run = runTurn<ContentPart>(plan, {
          signal: interrupted,
          attempt: (_round, { instruction, signal }) => {
            if (instruction === undefined) {
              const first = attemptResponse(inner.generateText(turn.request), turn.context, signal)
              return recordResolved(first, resolvedBefore(turn), resolved)
            }
            const retry = retryRequest(turn, resolved, instruction, plan.placement)
            return attemptResponse(
              Effect.mapError(Effect.andThen(forgetSentParts, inner.generateText(retry)), finalError),
              turn.context,
              signal,
            )
          },
        })
        const collector = makeContentCollector(plan.recoveriesBefore, resolvedBefore(turn))
        try {
          for await (const part of recalled.record(run)) collector.push(part)
        } catch (error) {
          return failure("generateText")(error)
        }
        return Exit.succeed(new LanguageModel.GenerateTextResponse(collector.content()))
      }),
    )
  })

/** One `generateText` attempt as normalized parts; its failure is thrown as an {@link InnerFailure}. */
async function* attemptResponse(
  effect: Effect.Effect<
    LanguageModel.GenerateTextResponse<AnyTools, Response.ToolParametersMode>,
    unknown,
    unknown
  >,
  context: Context.Context<never>,
  signal: AbortSignal,
): AsyncGenerator<NormalizedPart<ContentPart>, void, undefined> {
  const exit = await Effect.runPromiseExitWith(context)(
    // Forced: the service's effects are typed to need `unknown` (see `untyped-model.ts`); the
    // context is the caller's own, which holds what they need.
    effect as Effect.Effect<
      LanguageModel.GenerateTextResponse<AnyTools, Response.ToolParametersMode>,
      unknown
    >,
    {
      signal,
    },
  )
  if (Exit.isFailure(exit)) throw new InnerFailure(exit.cause)
  yield* normalizeContent(exit.value.content)
}
