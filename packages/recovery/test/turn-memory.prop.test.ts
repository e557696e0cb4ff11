/**
 * The turn memory keeps the bound against a caller that runs a failed turn again: for any
 * sequence of re-runs of one turn, each attempt leaking, answering or failing at the provider,
 * the retries of all runs together stay within `maxRecoveries`, a run after one that ended with
 * recovery's error sends nothing and gets that error, and a run that answered leaves nothing
 * behind. Model-based: an oracle counts what the runs may spend.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { createTurnMemory, planTurn, recallTurn, resolveRecoveryOptions, turnKey } from "../src/adapter.ts"
import { isToolCallRecoveryError, type NormalizedPart, runTurn } from "../src/index.ts"

const LEAK = "<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>\n</tool_call>"

type Outcome = "leak" | "answer" | "provider-error"

const anOutcome = fc.constantFrom<Outcome>("leak", "answer", "provider-error")

async function* attempt(outcome: Outcome): AsyncGenerator<NormalizedPart<string>> {
  if (outcome === "provider-error") throw new Error("HTTP 503")
  yield { type: "text", text: outcome === "leak" ? LEAK : "Done." }
  yield { type: "finish", raw: "stop" }
}

/** One run of the turn `messages` through the memory, as an adapter runs it. */
async function runOnce(
  memory: ReturnType<typeof createTurnMemory>,
  maxRecoveries: number,
  messages: unknown,
  outcomes: () => Outcome,
): Promise<{ readonly requests: number; readonly retries: number; readonly error: unknown }> {
  const recalled = recallTurn(memory, () => turnKey(messages))
  if (recalled.error !== undefined) return { requests: 0, retries: 0, error: recalled.error }
  const plan = planTurn(resolveRecoveryOptions({ maxRecoveries }), {
    tools: ["read_file"],
    recoveriesBefore: recalled.spent,
  })
  if (plan.kind === "skip") throw new Error("not skipped")
  let requests = 0
  let retries = 0
  const parts = recalled.record(
    runTurn<string>(plan, {
      attempt: (round) => {
        requests++
        if (round > 0) retries++
        return attempt(outcomes())
      },
    }),
  )
  try {
    for await (const _ of parts);
    return { requests, retries, error: undefined }
  } catch (error) {
    return { requests, retries, error }
  }
}

describe("re-runs of one turn share its budget", () => {
  test.prop([
    fc.integer({ min: 1, max: 3 }),
    fc.array(fc.array(anOutcome, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
  ])(
    "retries of all runs ≤ maxRecoveries; after recovery's error, runs send nothing",
    async (maxRecoveries, runs) => {
      const memory = createTurnMemory()
      const messages = [{ role: "user", content: "Read a" }]
      let retries = 0
      let ended: unknown
      for (const outcomes of runs) {
        let next = 0
        const result = await runOnce(
          memory,
          maxRecoveries,
          messages,
          () => outcomes[Math.min(next++, outcomes.length - 1)]!,
        )
        if (ended !== undefined) {
          // Recovery's error is remembered: the run gets it again with no request.
          expect(result).toEqual({ requests: 0, retries: 0, error: ended })
          continue
        }
        retries += result.retries
        if (isToolCallRecoveryError(result.error)) ended = result.error
        else if (result.error === undefined) {
          // An answer: the turn is forgotten, an identical request after it is a new turn.
          retries = 0
          expect(memory.recall(turnKey(messages)!)).toBeUndefined()
        }
        expect(retries).toBeLessThanOrEqual(maxRecoveries)
      }
    },
  )
})

describe("a run the consumer leaves during its retry", () => {
  it("keeps the retry spent: a re-run has no budget left", async () => {
    const memory = createTurnMemory()
    const messages = [{ role: "user", content: "Read a" }]
    const recalled = recallTurn(memory, () => turnKey(messages))
    const plan = planTurn(resolveRecoveryOptions({}), { tools: ["read_file"] })
    if (plan.kind === "skip") throw new Error("not skipped")
    const parts = recalled.record(runTurn<string>(plan, { attempt: () => attempt("leak") }))
    for await (const part of parts) if (part.type === "attempt-start") break
    expect(memory.recall(turnKey(messages)!)).toEqual({ spent: 1 })
    const again = await runOnce(memory, 1, messages, () => "leak")
    expect(again.retries).toBe(0)
    expect(isToolCallRecoveryError(again.error)).toBe(true)
  })
})

describe("the memory", () => {
  it("keys a turn by its content, whatever the order of its objects' keys", () => {
    expect(turnKey({ a: 1, b: [{ c: 2, d: 3 }] })).toBe(turnKey({ b: [{ d: 3, c: 2 }], a: 1 }))
    expect(turnKey({ a: 1 })).not.toBe(turnKey({ a: 2 }))
    expect(turnKey({ a: 1n })).toBeUndefined()
  })

  it("forgets a turn when its time is up, and the oldest first beyond its size", () => {
    let time = 0
    const memory = createTurnMemory({ maxEntries: 2, ttlMs: 1000, now: () => time })
    memory.remember("a", { spent: 1 })
    memory.remember("b", { spent: 1 })
    memory.remember("c", { spent: 1 })
    expect(memory.recall("a")).toBeUndefined()
    expect(memory.recall("b")).toEqual({ spent: 1 })
    memory.remember("b", { spent: 1 })
    expect(memory.recall("b")).toEqual({ spent: 2 })
    time = 1000
    expect(memory.recall("c")).toBeUndefined()
    expect(memory.empty).toBe(true)
  })
})
