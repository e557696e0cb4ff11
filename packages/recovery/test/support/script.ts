import type { NormalizedPart, OutputPart, RecoveryEvent, RecoveryOptions } from "../../src/index.ts"
import { recoverToolCalls } from "../../src/index.ts"

/**
 * A step of a scripted attempt: a part, a thrown error, or a pause (lets the test abort
 * mid-stream): `hang` ignores the signal (never resolves), `wait` respects it (throws its own
 * {@link PROVIDER_ABORT} error once the attempt's signal aborts, like a `fetch` body).
 */
export type Step<Raw = unknown> =
  | NormalizedPart<Raw>
  | { readonly type: "throw"; readonly error: unknown }
  | { readonly type: "hang" }
  | { readonly type: "wait" }

/** The message of the error a `wait` step throws when its signal aborts. */
export const PROVIDER_ABORT = "provider: request aborted"

export interface AttemptRecord {
  readonly round: number
  readonly instruction: string | undefined
  readonly signal: AbortSignal
  /** The attempt's iterator was closed (return()) or finished. */
  closed: boolean
  /** Parts the attempt produced. */
  produced: number
}

export interface TurnResult<Raw = unknown> {
  readonly parts: OutputPart<Raw>[]
  readonly events: RecoveryEvent[]
  readonly attempts: AttemptRecord[]
  readonly error: unknown
  readonly threw: boolean
}

/** An attempt function playing `scripts[round]` (the last script repeats). */
export function scripted<Raw>(
  scripts: readonly (readonly Step<Raw>[])[],
  attempts: AttemptRecord[],
): (
  round: number,
  context: { instruction: string | undefined; signal: AbortSignal },
) => AsyncGenerator<NormalizedPart<Raw>> {
  return (round: number, context: { instruction: string | undefined; signal: AbortSignal }) => {
    const record: AttemptRecord = { round, ...context, closed: false, produced: 0 }
    attempts.push(record)
    const script = scripts[Math.min(round, scripts.length - 1)] ?? []
    return (async function* () {
      try {
        for (const step of script) {
          if (step.type === "throw") throw step.error
          if (step.type === "hang") {
            // A provider that ignores its signal: never resolves.
            await new Promise(() => undefined)
          }
          if (step.type === "wait") {
            await new Promise((_resolve, reject) => {
              const fail = () => reject(new Error(PROVIDER_ABORT))
              if (context.signal.aborted) fail()
              else context.signal.addEventListener("abort", fail, { once: true })
            })
          }
          record.produced++
          yield step as NormalizedPart<Raw>
        }
      } finally {
        record.closed = true
      }
    })()
  }
}

export interface RunOptions {
  readonly tools?: readonly string[]
  readonly options?: RecoveryOptions
  readonly signal?: AbortSignal
  /** Recoveries earlier model calls of the turn made. */
  readonly recoveriesBefore?: number
  /** `TurnInput.finishRequired`: an attempt that ends without a finish part was cut short. */
  readonly finishRequired?: boolean
  /** `TurnInput.settlesOnAbort`: the attempts settle once their signal aborts (no race per part). */
  readonly settlesOnAbort?: boolean | undefined
  /** Called with each yielded part; return true to stop reading (a consumer `break`). */
  readonly onPart?: (part: OutputPart, index: number) => unknown
}

/** Runs a turn over scripted attempts and collects everything observable. */
export async function run<Raw = unknown>(
  scripts: readonly (readonly Step<Raw>[])[],
  run: RunOptions = {},
): Promise<TurnResult<Raw>> {
  const parts: OutputPart<Raw>[] = []
  const events: RecoveryEvent[] = []
  const attempts: AttemptRecord[] = []
  const userOnEvent = run.options?.onEvent
  let error: unknown
  let threw = false
  try {
    for await (const part of recoverToolCalls<Raw>({
      tools: run.tools ?? ["read_file", "bash"],
      attempt: scripted(scripts, attempts),
      ...(run.signal === undefined ? {} : { signal: run.signal }),
      recoveriesBefore: run.recoveriesBefore,
      finishRequired: run.finishRequired,
      settlesOnAbort: run.settlesOnAbort,
      options: {
        ...run.options,
        onEvent: (event) => {
          events.push(event)
          userOnEvent?.(event)
        },
      },
    })) {
      parts.push(part)
      if (run.onPart?.(part as OutputPart, parts.length - 1) === true) break
    }
  } catch (e) {
    error = e
    threw = true
  }
  return { parts, events, attempts, error, threw }
}

/** The visible text of the parts of one channel, across attempts. */
export function visible(parts: readonly OutputPart<unknown>[], type: "text" | "reasoning" = "text"): string {
  return parts
    .filter((p): p is Extract<OutputPart<unknown>, { type: "text" | "reasoning" }> => p.type === type)
    .map((p) => p.text)
    .join("")
}

export const text = (value: string, id?: string): NormalizedPart<string> =>
  id === undefined ? { type: "text", text: value } : { type: "text", text: value, id }
export const reasoning = (value: string): NormalizedPart<string> => ({ type: "reasoning", text: value })
export const finish = (raw = "stop"): NormalizedPart<string> => ({ type: "finish", raw })
export const call = (toolName: string, params = "{}"): NormalizedPart<string> => ({
  type: "tool-call",
  toolName,
  params,
  raw: `call:${toolName}`,
})
export const other = (raw: string): NormalizedPart<string> => ({ type: "other", raw })
