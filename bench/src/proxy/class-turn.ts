/**
 * `@tool-rescue/recovery` as the proxy's process of the `proxy-turn` suite sees it
 * (`class-turn-process.ts` maps the package here): today's recovery, except `runTurn`, which runs
 * the turn with the class-based `TurnStream` of commit 6efbb86 (`class-turn-build.ts` bundles it;
 * its file URL comes in `TOOL_RESCUE_BENCH_CLASS_TURN`). The plan's resolved options, tools and
 * budget are handed to that `runTurn` as its input then took them; the attempt's methods are
 * called on the proxy's own input object.
 */
import type { OutputPart, TurnInput } from "@tool-rescue/recovery"
import type { RecoverPlan } from "@tool-rescue/recovery/adapter"

export * from "@tool-rescue/recovery"

/** What the turn of 6efbb86 took: the tools, the raw options and the budget spent, with the input. */
interface ClassTurnInput<Raw> extends TurnInput<Raw> {
  readonly tools: readonly string[]
  readonly options: RecoverPlan["options"]
  readonly recoveriesBefore: number
}

type ClassRunTurn = <Raw>(input: ClassTurnInput<Raw>) => AsyncGenerator<OutputPart<Raw>, void, undefined>

const url = process.env.TOOL_RESCUE_BENCH_CLASS_TURN
if (url === undefined) throw new Error("bench: TOOL_RESCUE_BENCH_CLASS_TURN is not set")
const previous = (await import(url)) as { readonly runTurn: ClassRunTurn }

/** Says which turn the process runs (checked by `class-turn-process.ts`). */
export const TURN = "class-6efbb86"

export function runTurn<Raw>(
  plan: RecoverPlan,
  input: TurnInput<Raw>,
): AsyncGenerator<OutputPart<Raw>, void, undefined> {
  return previous.runTurn<Raw>({
    tools: plan.tools,
    options: plan.options,
    recoveriesBefore: plan.recoveriesBefore,
    attempt: (round, context) => input.attempt(round, context),
    signal: input.signal,
    finishRequired: input.finishRequired,
    settlesOnAbort: input.settlesOnAbort,
  })
}
