import { isRecoverable, type Markup } from "@tool-rescue/detector"
import type { RecoveryEvent } from "@tool-rescue/recovery"
import { chunked, leakedCall, response } from "@tool-rescue/testing"
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import {
  createResponseJudge,
  placeInstruction,
  planTurn,
  reasoningField,
  resolveRecoveryOptions,
  retryId,
  sumUsage,
  turnRecoveries,
} from "../src/adapter.ts"
import { isToolCallRecoveryError, runTurn } from "../src/index.ts"
import { markupReason } from "../src/markup-reason.ts"
import { type AttemptRecord, call, finish, run, scripted, text } from "./support/script.ts"

const QWEN = "<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"

describe("planTurn", () => {
  const options = resolveRecoveryOptions({ maxRecoveries: 2 })

  test("skip rules, in order, each reported once with a recovery-skipped event", () => {
    const events: RecoveryEvent[] = []
    const withEvents = resolveRecoveryOptions({ onEvent: (event) => events.push(event) })
    expect(
      planTurn(withEvents, { tools: ["bash"], unsupported: "multiple-choices", toolChoice: "none" }),
    ).toEqual({
      kind: "skip",
      reason: "multiple-choices",
    })
    expect(planTurn(withEvents, { tools: [], toolChoice: "none" })).toEqual({
      kind: "skip",
      reason: "no-tools",
    })
    expect(planTurn(withEvents, { tools: ["bash"], toolChoice: "none" })).toEqual({
      kind: "skip",
      reason: "tool-choice-none",
    })
    expect(events.map((event) => event.type === "recovery-skipped" && event.reason)).toEqual([
      "multiple-choices",
      "no-tools",
      "tool-choice-none",
    ])
  })

  test("the budget counts per turn: recoveries before are spent; scope step ignores them", () => {
    for (const toolChoice of ["auto", "required", "tool", undefined] as const) {
      expect(planTurn(options, { tools: ["bash"], toolChoice, recoveriesBefore: 1 })).toEqual({
        kind: "recover",
        options,
        tools: ["bash"],
        recoveriesBefore: 1,
        budget: 1,
        placement: "system",
      })
    }
    expect(planTurn(options, { tools: ["bash"], recoveriesBefore: 5 })).toMatchObject({ budget: 0 })
    const perStep = resolveRecoveryOptions({ maxRecoveries: 2, recoveryScope: "step" })
    expect(planTurn(perStep, { tools: ["bash"], recoveriesBefore: 5 })).toMatchObject({
      recoveriesBefore: 0,
      budget: 2,
    })
  })

  test("noRetry: recovered with no budget; a leak withholds the markup and ends the turn, the reason in the error", async () => {
    const options = resolveRecoveryOptions({ maxRecoveries: 2 })
    const plan = planTurn(options, { tools: ["read_file"], noRetry: "the conversation holds it" })
    expect(plan).toMatchObject({ kind: "recover", budget: 0, noRetry: "the conversation holds it" })
    if (plan.kind !== "recover") return
    const attempts: AttemptRecord[] = []
    const shown: unknown[] = []
    const error = await (async () => {
      for await (const part of runTurn(plan, {
        attempt: scripted([[text(`Reading. <tool_call>\n${QWEN}`), finish()]], attempts),
      }))
        shown.push(part)
    })().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isToolCallRecoveryError(error) && error.code).toBe("repeated-markup")
    expect((error as Error).message).toMatch(/could not be retried: the conversation holds it/)
    expect(JSON.stringify(shown)).not.toContain("<tool_call>")
    expect(attempts).toHaveLength(1)
  })

  test("an invalid recoveryScope is API misuse", () => {
    expect(() => resolveRecoveryOptions({ recoveryScope: "day" as "turn" })).toThrow(TypeError)
  })
})

describe("turnRecoveries", () => {
  type Message = { readonly role: string; readonly mark?: number }
  const reader = {
    startsTurn: (m: Message) => m.role === "user",
    recoveries: (m: Message) => m.mark ?? 0,
  }

  test("reads the largest mark after the last user message only", () => {
    const history: Message[] = [
      { role: "user" },
      { role: "assistant", mark: 3 },
      { role: "user" },
      { role: "assistant", mark: 1 },
      { role: "tool" },
      { role: "assistant" },
    ]
    expect(turnRecoveries(history, reader)).toBe(1)
    expect(turnRecoveries(history.slice(0, 3), reader)).toBe(0)
    expect(turnRecoveries([], reader)).toBe(0)
  })
})

/** Markup records as a detector reports them: a name implies nothing about `offered`, no name means not offered. */
const markupArbitrary: fc.Arbitrary<Markup> = fc
  .record({
    toolName: fc.option(fc.constantFrom("read_file", "rm"), { nil: undefined }),
    offeredIfNamed: fc.boolean(),
    opening: fc.boolean(),
    closing: fc.boolean(),
    structured: fc.boolean(),
    inReasoning: fc.boolean(),
    answerFollows: fc.boolean(),
  })
  .map(({ offeredIfNamed, toolName, ...rest }) => ({
    ...rest,
    toolName,
    offered: toolName !== undefined && offeredIfNamed,
    format: "hermes",
    complete: true,
    start: 0,
    end: 1,
  }))

const policyArbitrary = fc.record({
  evidence: fc.constantFrom("structure", "envelope") as fc.Arbitrary<"structure" | "envelope">,
  reasoning: fc.constantFrom("auto", "ignore", "recover") as fc.Arbitrary<"auto" | "ignore" | "recover">,
})

describe("markupReason", () => {
  test("recoverable exactly when the detector's isRecoverable holds and the response is clean", () => {
    fc.assert(
      fc.property(
        markupArbitrary,
        policyArbitrary,
        fc.boolean(),
        fc.boolean(),
        (markup, policy, structuredCall, failed) => {
          const reason = markupReason(markup, policy, { structuredCall, failed })
          expect(reason === "recoverable").toBe(isRecoverable(markup, policy) && !structuredCall && !failed)
          // A response-level reason only ever replaces "recoverable".
          if (reason === "structured-call" || reason === "provider-error")
            expect(isRecoverable(markup, policy)).toBe(true)
        },
      ),
    )
  })

  test("names the rule that ruled the markup out", () => {
    // Built by hand: which shapes a detector reports is the detector's business, not this rule's.
    const base: Markup = {
      format: "qwen3-coder",
      toolName: "read_file",
      offered: true,
      opening: false,
      closing: false,
      structured: true,
      complete: true,
      inReasoning: true,
      answerFollows: true,
      start: 0,
      end: 20,
    }
    expect(markupReason(base, {})).toBe("in-reasoning-answer-follows")
    expect(markupReason(base, { reasoning: "ignore" })).toBe("in-reasoning")
    expect(markupReason(base, { evidence: "envelope" })).toBe("no-envelope")
    expect(markupReason({ ...base, structured: false }, {})).toBe("no-structure")
    expect(markupReason({ ...base, offered: false }, {})).toBe("not-offered")
    expect(markupReason({ ...base, offered: false, toolName: undefined }, {})).toBe("unnamed")
  })
})

describe("runTurn under the planner", () => {
  test("no budget left in the turn: a malformed response ends it with repeated-markup and no retry", async () => {
    const { error, attempts, events } = await run(
      [
        [text(QWEN), finish()],
        [call("read_file"), finish()],
      ],
      {
        recoveriesBefore: 1,
      },
    )
    expect(error).toMatchObject({ code: "repeated-markup" })
    expect(attempts).toHaveLength(1)
    expect(events.filter((event) => event.type === "recovery-started")).toEqual([])
  })

  test("recoveryScope step: recoveries before do not count", async () => {
    const { error, attempts } = await run(
      [
        [text(QWEN), finish()],
        [call("read_file"), finish()],
      ],
      {
        recoveriesBefore: 1,
        options: { recoveryScope: "step" },
      },
    )
    expect(error).toBeUndefined()
    expect(attempts).toHaveLength(2)
  })

  test("a provider error inside the stream is final: never retried, passed through, reason provider-error", async () => {
    const error = { type: "other", raw: "error-part", failed: true } as const
    for (const script of [
      [text(QWEN), error, finish()],
      [text(QWEN), { type: "finish", raw: "error", failed: true } as const],
    ]) {
      const { parts, attempts, events, threw } = await run([script, [call("read_file"), finish()]])
      expect(threw).toBe(false)
      expect(attempts).toHaveLength(1)
      expect(parts.at(-1)).toBe(script.at(-1))
      expect(events).toContainEqual(
        expect.objectContaining({ type: "markup-detected", reason: "provider-error", recoverable: false }),
      )
    }
  })

  test("for any leak in any format and chunking, a provider error inside the stream is final", async () => {
    const tools = ["read_file", "bash"]
    const cases = leakedCall({ tools }).chain((sample) =>
      fc.tuple(fc.constant(sample), chunked(sample.text), fc.constantFrom("error-part", "error-finish")),
    )
    await fc.assert(
      fc.asyncProperty(cases, async ([sample, chunks, ending]) => {
        const tail =
          ending === "error-part"
            ? [{ type: "other", raw: "error", failed: true } as const, finish()]
            : [{ type: "finish", raw: "error", failed: true } as const]
        const script = [...chunks.map((chunk) => text(chunk)), ...tail]
        const { parts, attempts, events, threw } = await run([script, [call(tools[0]!), finish()]], { tools })
        expect(threw).toBe(false)
        expect(attempts).toHaveLength(1)
        expect(events.some((event) => event.type === "recovery-started")).toBe(false)
        expect(parts.slice(-tail.length)).toEqual(tail)
        const reasons = events.flatMap((event) => (event.type === "markup-detected" ? [event.reason] : []))
        expect(reasons).not.toContain("recoverable")
        if (sample.labels.recoverable) expect(reasons).toContain("provider-error")
      }),
      { numRuns: 60 },
    )
  })

  test("every markup-detected event carries its reason", async () => {
    const { events } = await run([[text(QWEN), call("bash"), finish()]])
    expect(events).toContainEqual(
      expect.objectContaining({ type: "markup-detected", reason: "structured-call" }),
    )
  })
})

describe("createResponseJudge", () => {
  test("judges a response as runTurn decides it, and is fresh after end()", async () => {
    const judge = createResponseJudge({ tools: ["read_file", "bash"] })
    const scripts = [
      [text("Reading.\n"), text(QWEN), finish()],
      [text(QWEN), call("bash"), finish()],
      [{ type: "reasoning", text: QWEN } as const, text("Done."), finish()],
      [text("plain prose"), finish()],
    ]
    for (const script of scripts) {
      for (const part of script) judge.push(part)
      const judgement = judge.end()
      const { events, attempts } = await run([script, [finish()]])
      const detected = events.filter((e) => e.type === "markup-detected")
      expect(judgement.markup.map((m) => m.reason)).toEqual(
        detected.map((e) => e.type === "markup-detected" && e.reason),
      )
      expect(judgement.retry).toBe(attempts.length > 1)
    }
  })
})

describe("createResponseJudge and runTurn agree", () => {
  test("for any generated response and chunking: the same reasons, and a retry exactly when the judge says so", async () => {
    const tools = ["read_file", "bash"]
    const judge = createResponseJudge({ tools })
    const cases = response({ tools, unknownTools: true }).chain((sample) =>
      fc.tuple(fc.constant(sample), chunked(sample.text), fc.boolean()),
    )
    await fc.assert(
      fc.asyncProperty(cases, async ([sample, chunks, structured]) => {
        const script = [
          ...chunks.map((chunk) => text(chunk)),
          ...(structured ? [call("bash")] : []),
          finish(),
        ]
        for (const part of script) judge.push(part)
        const judgement = judge.end()
        const { events, attempts } = await run([script, [call("read_file"), finish()]], { tools })
        const reasons = events.flatMap((event) =>
          event.type === "markup-detected" && event.round === 0 ? [event.reason] : [],
        )
        expect(judgement.markup.map((found) => found.reason)).toEqual(reasons)
        expect(judgement.retry).toBe(attempts.length > 1)
        expect(judgement.retry).toBe(sample.labels.recoverable && !structured)
      }),
      { numRuns: 80 },
    )
  })
})

describe("shared rules", () => {
  test("sumUsage adds every count, keeps a one-sided count, takes keepLast keys from the later attempt", () => {
    expect(
      sumUsage(
        { inputTokens: { total: 3, cacheRead: undefined }, outputTokens: { total: 1 }, raw: { a: 1 } },
        { inputTokens: { total: 4, cacheRead: 2 }, outputTokens: { total: undefined }, raw: { a: 5 } },
        ["raw"],
      ),
    ).toEqual({ inputTokens: { total: 7, cacheRead: 2 }, outputTokens: { total: 1 }, raw: { a: 5 } })
    fc.assert(
      fc.property(fc.array(fc.nat(1000), { minLength: 1, maxLength: 5 }), (counts) => {
        const total = counts
          .map((n) => ({ prompt_tokens: n, details: { cached_tokens: n } }))
          .reduce((a, b) => sumUsage(a, b))
        const expected = counts.reduce((a, b) => a + b, 0)
        expect(total).toEqual({ prompt_tokens: expected, details: { cached_tokens: expected } })
      }),
    )
  })

  test("placeInstruction merges into a leading system message, else prepends one; user appends", () => {
    const operations = {
      mergeSystem: (p: string[], merge: (text: string) => string) =>
        p[0]?.startsWith("s:") ? [`s:${merge(p[0].slice(2))}`, ...p.slice(1)] : undefined,
      prependSystem: (p: string[], t: string) => [`s:${t}`, ...p],
      appendUser: (p: string[], t: string) => [...p, `u:${t}`],
    }
    expect(placeInstruction(["s:Be brief.", "u:Hi"], "I.", "system", operations)).toEqual([
      "s:Be brief.\n\nI.",
      "u:Hi",
    ])
    expect(placeInstruction(["u:Hi"], "I.", "system", operations)).toEqual(["s:I.", "u:Hi"])
    expect(placeInstruction(["s:", "u:Hi"], "I.", "system", operations)).toEqual(["s:I.", "u:Hi"])
    expect(placeInstruction(["s:x", "u:Hi"], "I.", "user", operations)).toEqual(["s:x", "u:Hi", "u:I."])
  })

  test("reasoningField reads reasoning_content, reasoning and thinking", () => {
    expect(reasoningField({ reasoning_content: "a", reasoning: "b" })).toBe("reasoning_content")
    expect(reasoningField({ reasoning: "" })).toBe("reasoning")
    expect(reasoningField({ thinking: "t" })).toBe("thinking")
    expect(reasoningField({ thinking: 1 })).toBeUndefined()
    expect(reasoningField(undefined)).toBeUndefined()
  })

  test("retryId", () => {
    expect(retryId("txt-0", 0)).toBe("txt-0")
    expect(retryId("txt-0", 2)).toBe("txt-0-retry2")
  })
})
