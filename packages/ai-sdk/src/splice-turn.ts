import type {
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider"
import { isToolCallRecoveryError, runTurn } from "@tool-rescue/recovery"
import {
  placeInstruction,
  type RecalledTurn,
  type RecoverPlan,
  sumUsage,
} from "@tool-rescue/recovery/adapter"
import { promptOperations } from "./prompt-operations.ts"
import { type AttemptParts, readParts } from "./read-parts.ts"
import { createStreamSplicer, type StreamSplicer } from "./stream-splicer.ts"

type Part = LanguageModelV4StreamPart

/** What {@link spliceTurn} needs for one model call (one step of `streamText`/`generateText`). */
export interface TurnSetup {
  /** The call options of the step, as the middleware received them. */
  readonly params: LanguageModelV4CallOptions
  /**
   * The step's plan (`planTurn` of `@tool-rescue/recovery`): its tools, the turn's recoveries so
   * far, the resolved options and the instruction's placement.
   */
  readonly plan: RecoverPlan
  /** Round 0's response, already requested by the caller (so its errors reach the SDK unchanged). */
  readonly first: ReadableStream<Part>
  /** Sends a retry: the same call with the instruction placed in the prompt. */
  readonly retry: (params: LanguageModelV4CallOptions) => PromiseLike<ReadableStream<Part>>
  /**
   * `"stream"` (`wrapStream`): what was shown stays, and a `ToolCallRecoveryError` (a second
   * malformed response, a failed `persistFailed`) ends the stream with an `error` part and a
   * `finish` with reason `error` (the streaming convention of the AI SDK). `"generate"`
   * (`wrapGenerate`): nothing was shown, so only the last attempt's parts are kept (the
   * malformed response is absent from the result and `response.messages`), and a
   * `ToolCallRecoveryError` errors the stream (so `generateText` rejects). Provider errors and
   * cancellation always error the stream with the error unchanged, as the provider's own stream
   * would have.
   */
  readonly mode: "stream" | "generate"
  /** What earlier runs of the same call left in the middleware's turn memory: records this run. */
  readonly recalled?: RecalledTurn | undefined
}

/**
 * Runs one turn through `runTurn` of `@tool-rescue/recovery` and returns the spliced V4 stream:
 * what the consumer sees, as if one model call had produced it. The adapter's own work is only
 * the mapping: parts to normalized parts and back, the instruction placed in the retry prompt,
 * the usage summed over attempts.
 *
 * The stream is pull-based: nothing is read from the provider before the consumer asks.
 * Cancelling it (`streamText`'s abort, a consumer that stops reading) aborts the turn (the
 * in-flight request is aborted, no retry starts). The user's `abortSignal` does the same.
 */
export function spliceTurn(setup: TurnSetup): ReadableStream<Part> {
  const { params, first, plan } = setup
  let usage: LanguageModelV4Usage | undefined
  const onFinish = (part: Extract<Part, { type: "finish" }>): void => {
    // `raw` is the provider's own object: the last attempt's is kept.
    usage = sumUsage(usage, part.usage, ["raw"])
  }
  let firstTaken = false
  /** The attempt being read, so that a cancel reaches it without waiting for its next part. */
  let current: AttemptParts | undefined
  // Only for retry requests: runTurn aborts their signal when it learns that the consumer left,
  // which it cannot while it waits for the request itself.
  const cancelled = new AbortController()
  const run = runTurn<Part>(plan, {
    // The V4 stream protocol ends every complete response with `finish` (AI SDK core takes a
    // stream without one for incomplete): a provider stream that just closes was cut short.
    finishRequired: true,
    // `streamText` shows what an abandoned attempt released: the retry continues after it.
    streaming: setup.mode === "stream",
    attempt: async (round, context) => {
      if (round === 0) {
        firstTaken = true
        current = readParts(first, onFinish)
        return current
      }
      const prompt =
        context.instruction === undefined
          ? params.prompt
          : placeInstruction(params.prompt, context.instruction, plan.placement, promptOperations)
      const abortSignal = AbortSignal.any([context.signal, cancelled.signal])
      const stream = await setup.retry({ ...params, prompt, abortSignal })
      current = readParts(stream, onFinish)
      if (cancelled.signal.aborted) current.cancel(cancelled.signal.reason)
      return current
    },
    signal: params.abortSignal,
  })
  const turn = setup.recalled === undefined ? run : setup.recalled.record(run)
  const releaseFirst = () => {
    if (!firstTaken) void first.cancel().catch(() => {})
  }

  const generate = setup.mode === "generate"
  /** `generate`: the parts of the current attempt, emitted when the turn ends. */
  const kept: Part[] = []
  let splicer: StreamSplicer
  return new ReadableStream<Part>(
    {
      start(controller) {
        splicer = createStreamSplicer(
          generate ? (part) => kept.push(part) : (part) => controller.enqueue(part),
          plan.recoveriesBefore,
        )
      },
      async pull(controller) {
        // One pull fills the queue (an enqueue hands the part to a waiting reader at once, so
        // nothing waits for the fill): one pull per part would cost a promise round trip each.
        // Some parts of `runTurn` map to no part at all.
        try {
          while ((controller.desiredSize ?? 0) > 0) {
            const step = await turn.next()
            if (step.done === true) {
              splicer.end(usage)
              for (const part of kept) controller.enqueue(part)
              controller.close()
              releaseFirst()
              return
            }
            splicer.push(step.value)
            // `generate`: the malformed attempt is dropped whole, prose included (after the
            // splicer closed its blocks, so no stray end is kept either).
            if (generate && step.value.type === "attempt-start") kept.length = 0
          }
        } catch (error) {
          releaseFirst()
          // Cancelled: the consumer is gone and the stream takes no more parts.
          if (cancelled.signal.aborted) return
          splicer.close()
          if (!generate && params.abortSignal?.aborted !== true && isToolCallRecoveryError(error)) {
            controller.enqueue({ type: "error", error })
            controller.enqueue(errorFinish(usage))
            controller.close()
          } else {
            controller.error(error)
          }
        }
      },
      async cancel(reason) {
        // A `next()` may be pending on the provider: cancel the attempt's stream (the pending read
        // rejects) and abort a pending retry request, so that `return()`, which runs once that
        // `next()` settles, is not held up by a stalled provider. No new attempt starts.
        cancelled.abort(reason)
        current?.cancel(reason)
        releaseFirst()
        await turn.return(undefined).catch(() => undefined)
      },
    },
    // Read-ahead of up to 64 parts (see `pull`); memory is bounded by the provider's own chunks.
    { highWaterMark: 64 },
  )
}

/** Usage with every count unknown, for an error finish before any attempt reported usage. */
const NO_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
}

function errorFinish(usage: LanguageModelV4Usage | undefined): Part {
  return { type: "finish", finishReason: { unified: "error", raw: undefined }, usage: usage ?? NO_USAGE }
}
