import type {
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider"
import { isToolCallRecoveryError, type RecoveryOptions, runTurn } from "@tool-rescue/recovery"
import { placeInstruction } from "./place-instruction.ts"
import { readParts } from "./read-parts.ts"
import { createStreamSplicer } from "./stream-splicer.ts"
import { emptyUsage, sumUsage } from "./sum-usage.ts"

type Part = LanguageModelV4StreamPart

/** What {@link spliceTurn} needs for one model call (one step of `streamText`/`generateText`). */
export interface TurnSetup {
  /** The call options of the step, as the middleware received them. */
  readonly params: LanguageModelV4CallOptions
  readonly options: RecoveryOptions
  readonly placement: "system" | "user"
  /** Round 0's response, already requested by the caller (so its errors reach the SDK unchanged). */
  readonly first: ReadableStream<Part>
  /** Sends a retry: the same call with the instruction placed in the prompt. */
  readonly retry: (params: LanguageModelV4CallOptions) => PromiseLike<ReadableStream<Part>>
  /** Cancels the turn: the user's `abortSignal`, combined with the consumer's cancel when streaming. */
  readonly signal: AbortSignal | undefined
  /**
   * What a `ToolCallRecoveryError` (a second malformed response, a failed `persistFailed`)
   * becomes: `"parts"` ends the stream with an `error` part and a `finish` with reason `error`
   * (the streaming convention of the AI SDK); `"throw"` rethrows it (`generateText` rejects).
   * Provider errors and cancellation are always rethrown unchanged, as the provider's own stream
   * or promise would have failed.
   */
  readonly failure: "parts" | "throw"
}

/**
 * Runs one turn through `runTurn` of `@tool-rescue/recovery` and yields the spliced V4 stream:
 * what the consumer sees, as if one model call had produced it. The adapter's own work is only
 * the mapping: parts to normalized parts and back, the instruction placed in the retry prompt,
 * the usage summed over attempts.
 */
export async function* spliceTurn(setup: TurnSetup): AsyncGenerator<Part, void, undefined> {
  const { params, first, signal } = setup
  let usage = emptyUsage
  const onFinish = (part: Extract<Part, { type: "finish" }>): void => {
    usage = sumUsage(usage, part.usage)
  }
  let firstTaken = false
  const queue: Part[] = []
  const splicer = createStreamSplicer((part) => queue.push(part))
  const turn = runTurn<Part>({
    // Exactly the tools offered in this step (after `activeTools` / `prepareStep`): core parses
    // the returned calls against the same set.
    tools: params.tools?.map((tool) => tool.name) ?? [],
    attempt: async (round, context) => {
      if (round === 0) {
        firstTaken = true
        return readParts(first, onFinish)
      }
      const prompt =
        context.instruction === undefined
          ? params.prompt
          : placeInstruction(params.prompt, context.instruction, setup.placement)
      const stream = await setup.retry({ ...params, prompt, abortSignal: context.signal })
      return readParts(stream, onFinish)
    },
    ...(signal === undefined ? {} : { signal }),
    options: setup.options,
  })
  try {
    for await (const part of turn) {
      splicer.push(part)
      if (queue.length > 0) yield* drain(queue)
    }
    splicer.end(usage)
  } catch (error) {
    splicer.close()
    if (setup.failure === "throw" || signal?.aborted === true || !isToolCallRecoveryError(error)) {
      yield* drain(queue)
      throw error
    }
    queue.push({ type: "error", error }, errorFinish(usage))
  } finally {
    if (!firstTaken) void first.cancel().catch(() => {})
  }
  yield* drain(queue)
}

function errorFinish(usage: LanguageModelV4Usage): Part {
  return { type: "finish", finishReason: { unified: "error", raw: undefined }, usage }
}

/** Empties `queue`, yielding its parts in order. */
function* drain(queue: Part[]): Generator<Part, void, undefined> {
  const parts = queue.splice(0, queue.length)
  for (const part of parts) yield part
}
