/**
 * The turn memory keeps the bound against a caller that runs a failed turn again: for any
 * sequence of re-runs of one turn, each attempt leaking, answering or failing at the provider,
 * the retries of all runs together stay within `maxRecoveries`, a run after one that ended with
 * recovery's error sends nothing and gets that error, and a run that answered leaves nothing
 * behind. Model-based: an oracle counts what the runs may spend.
 */
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import {
  createTurnMemory,
  planTurn,
  recallTurn,
  resolveRecoveryOptions,
  sortedKeys,
  turnKey,
} from "../src/adapter.ts"
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

type Op =
  | {
      readonly kind: "remember"
      readonly key: string
      readonly spent: number
      readonly error?: string
      readonly shape?: string
    }
  | { readonly kind: "forget"; readonly key: string }
  | { readonly kind: "tick"; readonly ms: number }

const KEYS = ["a", "b", "c", "d"]
const SHAPES = ["x", "y"]
const anOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record(
    {
      kind: fc.constant("remember" as const),
      key: fc.constantFrom(...KEYS),
      spent: fc.integer({ min: 0, max: 2 }),
      error: fc.constantFrom("repeated-markup", "truncated-call"),
      shape: fc.constantFrom(...SHAPES),
    },
    { requiredKeys: ["kind", "key", "spent"] },
  ),
  fc.record({ kind: fc.constant("forget" as const), key: fc.constantFrom(...KEYS) }),
  fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 60 }) }),
)

describe("the memory against a list of its turns (model)", () => {
  test.prop([fc.array(anOp, { maxLength: 40 })])(
    "recall, empty and mayHold say what the oldest-first, time-bounded list holds; re-runs add their retries",
    (ops) => {
      const ttlMs = 50
      const maxEntries = 3
      let time = 0
      const memory = createTurnMemory<string>({ maxEntries, ttlMs, now: () => time })
      // The oracle: the turns in the order remembered, each with its deadline.
      let model: {
        key: string
        spent: number
        error: string | undefined
        shape: string | undefined
        until: number
      }[] = []
      const sweep = () => {
        while (model.length > 0 && (model.length > maxEntries || model[0]!.until <= time)) model.shift()
      }
      for (const op of ops) {
        if (op.kind === "tick") time += op.ms
        else if (op.kind === "forget") {
          memory.forget(op.key)
          model = model.filter((turn) => turn.key !== op.key)
        } else {
          memory.remember(op.key, { spent: op.spent, error: op.error }, op.shape)
          const before = model.find((turn) => turn.key === op.key && turn.until > time)
          model = model.filter((turn) => turn.key !== op.key)
          const spent = op.spent + (before?.spent ?? 0)
          model.push({ key: op.key, spent, error: op.error, shape: op.shape, until: time + ttlMs })
          sweep()
        }
        sweep()
        expect(memory.empty).toBe(model.length === 0)
        for (const shape of SHAPES)
          expect(memory.mayHold(shape)).toBe(model.some((turn) => turn.shape === shape))
        for (const key of KEYS) {
          const turn = model.find((held) => held.key === key)
          expect(memory.recall(key)).toEqual(
            turn === undefined ? undefined : { spent: turn.spent, error: turn.error },
          )
        }
      }
    },
  )
})

describe("turnKey", () => {
  /** `value` with every object's keys in reverse order. */
  const reversed = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(reversed)
    if (typeof value !== "object" || value === null) return value
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, item]) => [key, reversed(item)]),
    )
  }

  test.prop([fc.array(fc.dictionary(fc.string(), fc.jsonValue()))])(
    "does not depend on the order of the keys in its objects (sortedKeys)",
    (messages) => {
      expect(JSON.stringify(reversed(messages), sortedKeys)).toBe(JSON.stringify(messages, sortedKeys))
      expect(turnKey(reversed(messages))).toBe(turnKey(messages))
    },
  )
})
