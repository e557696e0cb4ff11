import { type FailedResponse, recoverToolCalls, runTurn, ToolCallRecoveryError } from "@tool-rescue/recovery"
import { planTurn, resolveRecoveryOptions } from "@tool-rescue/recovery/adapter"
import { describe, expect, test } from "vitest"
import { call, finish, other, reasoning, run, text, visible } from "./support/script.ts"

const HERMES = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>'
const QWEN = "<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"
const UNKNOWN = '<tool_call>\n{"name": "launch_rockets", "arguments": {}}\n</tool_call>'

describe("forwarding", () => {
  test("a clean response passes through as the very same part objects, in order", async () => {
    const script = [text("Hello "), other("meta"), text("world."), finish()]
    const { parts, attempts, events } = await run([script])
    expect(parts).toEqual(script)
    for (const [i, p] of parts.entries()) expect(p).toBe(script[i])
    expect(attempts).toHaveLength(1)
    expect(events).toEqual([])
  })

  test("safe text is forwarded while the attempt is still streaming", async () => {
    // The attempt never ends: the text can only reach the consumer if it is forwarded at once.
    const controller = new AbortController()
    const { parts, error } = await run([[text("Checking the file. "), { type: "hang" }]], {
      signal: controller.signal,
      onPart: () => {
        controller.abort(new Error("seen"))
      },
    })
    expect(parts).toEqual([text("Checking the file. ")])
    expect(error).toEqual(new Error("seen"))
  })

  test("markup split across deltas is withheld; the text before it is forwarded", async () => {
    const chunks = [
      "Let me read it.\n<tool",
      '_call>\n{"name": "read_file", ',
      '"arguments": {}}\n</tool_call>',
    ]
    const { parts, attempts } = await run([[...chunks.map((c) => text(c)), call("read_file"), finish()]])
    expect(visible(parts)).toBe("Let me read it.\n")
    expect(attempts).toHaveLength(1) // a structured call: no retry
    expect(parts.map((p) => p.type)).toEqual(["text", "tool-call", "finish"])
  })

  test("held text that proves harmless is released, keeping its part's id", async () => {
    const { parts } = await run([[text("a <", "t1"), text("b>", "t1"), other("text-end"), finish()]])
    expect(visible(parts)).toBe("a <b>")
    expect(parts.filter((p) => p.type === "text").every((p) => "id" in p && p.id === "t1")).toBe(true)
    // The text-end never overtakes the text of its block.
    expect(parts.at(-2)).toEqual(other("text-end"))
  })

  test("non-text parts wait behind undecided text, so order is kept", async () => {
    const { parts } = await run([[text("x <tool", "a"), other("text-end:a"), text("ish", "b"), finish()]])
    expect(parts).toEqual([
      { type: "text", text: "x ", id: "a" },
      { type: "text", text: "<tool", id: "a" },
      other("text-end:a"),
      text("ish", "b"),
      finish(),
    ])
  })
})

describe("recovery", () => {
  test("recoverable markup without a structured call retries once with the instruction", async () => {
    const { parts, attempts, events } = await run([
      [text("Sure.\n"), text(QWEN), finish("f0")],
      [call("read_file", '{"path":"a.ts"}'), finish("f1")],
    ])
    expect(attempts.map((a) => a.round)).toEqual([0, 1])
    expect(attempts[0]!.instruction).toBeUndefined()
    expect(attempts[1]!.instruction).toMatch(/no action occurred/i)
    expect(attempts[1]!.instruction).toMatch(/structured tool-call format/i)
    expect(attempts[1]!.instruction).toMatch(/complete: do not repeat/i)
    expect(parts).toEqual([
      text("Sure.\n"),
      { type: "attempt-start", round: 1, discarded: ["f0"] },
      call("read_file", '{"path":"a.ts"}'),
      finish("f1"),
    ])
    expect(events.map((e) => e.type)).toEqual(["markup-detected", "recovery-started", "recovery-succeeded"])
    const detected = events[0]
    expect(detected?.type === "markup-detected" && detected.text).toBe(QWEN)
  })

  test("a second malformed response throws repeated-markup with the rounds and the markup", async () => {
    const { error, attempts, events, parts } = await run([
      [text(HERMES), finish()],
      [text(QWEN), finish()],
    ])
    expect(attempts).toHaveLength(2)
    expect(ToolCallRecoveryError.isInstance(error)).toBe(true)
    const e = error as ToolCallRecoveryError
    expect(e.code).toBe("repeated-markup")
    expect(e.rounds).toBe(2)
    expect(e.markup.map((m) => [m.round, m.format, m.toolName])).toEqual([
      [0, "hermes", "read_file"],
      [1, "qwen3-coder", "read_file"],
    ])
    expect(events.at(-1)).toMatchObject({ type: "recovery-failed", round: 1, error })
    expect(parts.some((p) => p.type === "finish")).toBe(false)
  })

  test("maxRecoveries bounds the retries", async () => {
    const { attempts, error } = await run([[text(HERMES), finish()]], { options: { maxRecoveries: 3 } })
    expect(attempts).toHaveLength(4)
    expect((error as ToolCallRecoveryError).rounds).toBe(4)
  })

  test("a structured call in the attempt means no retry, even with recoverable markup", async () => {
    const { attempts, parts } = await run([[text(HERMES), call("bash"), finish()]])
    expect(attempts).toHaveLength(1)
    expect(visible(parts)).toBe("")
  })

  test("markup naming a tool that was not offered is withheld but not retried", async () => {
    const { attempts, parts, events } = await run([[text("Hi "), text(UNKNOWN), text(" bye"), finish()]])
    expect(attempts).toHaveLength(1)
    expect(visible(parts)).toBe("Hi  bye")
    expect(events).toMatchObject([{ type: "markup-detected", recoverable: false, text: UNKNOWN }])
  })

  test("persistFailed receives the malformed response before the retry", async () => {
    const order: string[] = []
    const { attempts } = await run(
      [[reasoning("thinking"), text("Ok "), text(HERMES), finish()], [finish()]],
      {
        options: {
          persistFailed: async (failed) => {
            order.push(`persist:${failed.round}:${failed.text}:${failed.reasoning}:${failed.markup.length}`)
          },
        },
      },
    )
    expect(order).toEqual([`persist:0:Ok ${HERMES}:thinking:1`])
    expect(attempts).toHaveLength(2)
  })

  test("a failing persistFailed ends the turn with persist-failed and no retry", async () => {
    const cause = new Error("db down")
    const { attempts, error } = await run([[text(HERMES), finish()]], {
      options: {
        persistFailed: () => {
          throw cause
        },
      },
    })
    expect(attempts).toHaveLength(1)
    expect(error).toMatchObject({ code: "persist-failed", cause })
  })

  test("a rejecting persistFailed ends the turn with persist-failed and no retry", async () => {
    const { attempts, error } = await run([[text(HERMES), finish()]], {
      options: { persistFailed: () => Promise.reject(new Error("nope")) },
    })
    expect(attempts).toHaveLength(1)
    expect(ToolCallRecoveryError.isInstance(error) && error.code).toBe("persist-failed")
  })

  test("the instruction can be a string or a function of the context", async () => {
    const fixed = await run([[text(HERMES), finish()], [finish()]], {
      options: { instruction: "Use real calls." },
    })
    expect(fixed.attempts[1]!.instruction).toBe("Use real calls.")
    const computed = await run([[text(HERMES), finish()], [finish()]], {
      options: {
        instruction: (c) =>
          `round ${c.round}: ${c.markup.map((m) => m.toolName).join()} of ${c.tools.join()}`,
      },
    })
    expect(computed.attempts[1]!.instruction).toBe("round 1: read_file of read_file,bash")
  })
})

describe("events and boundaries", () => {
  test("events come in order, with persistFailed between recovery-started and the retry", async () => {
    const log: string[] = []
    await run(
      [
        [text(HERMES), finish("f0"), other("late")],
        [text("ok"), finish("f1")],
      ],
      {
        options: {
          onEvent: (e) => log.push(e.type),
          persistFailed: () => {
            log.push("persist")
          },
        },
        onPart: (p) => {
          log.push(`part:${p.type}`)
        },
      },
    )
    expect(log).toEqual([
      "markup-detected",
      "recovery-started",
      "persist",
      "part:attempt-start",
      "part:text",
      "recovery-succeeded",
      "part:finish",
    ])
  })

  test("attempt-start carries the raws of the discarded finish and the parts after it", async () => {
    const { parts } = await run([[text(HERMES), finish("f0"), other("usage")], [finish("f1")]])
    expect(parts).toEqual([{ type: "attempt-start", round: 1, discarded: ["f0", "usage"] }, finish("f1")])
  })

  test("parts after the finish of a kept attempt follow it, in order", async () => {
    const { parts } = await run([[text("hi"), finish("f0"), other("usage")]])
    expect(parts).toEqual([text("hi"), finish("f0"), other("usage")])
  })

  test("a marker prefix held at the end of the stream is released before the finish", async () => {
    const { parts } = await run([[text("see a <tool_c"), finish()]])
    expect(parts).toEqual([text("see a "), text("<tool_c"), finish()])
  })

  test("held text does not block a switch of channel, and each piece keeps its channel", async () => {
    const { parts } = await run([[reasoning("thinking <"), text("answer <"), reasoning("more"), finish()]])
    expect(parts).toEqual([
      reasoning("thinking "),
      reasoning("<"),
      text("answer "),
      text("<"),
      reasoning("more"),
      finish(),
    ])
  })

  test("markup offsets in events are into the whole channel text of the attempt", async () => {
    const { events } = await run([[text("ab"), reasoning("r"), text(`cd${UNKNOWN}`), finish()]])
    const detected = events.find((e) => e.type === "markup-detected")
    expect(detected).toMatchObject({
      channel: "text",
      text: UNKNOWN,
      markup: { start: 4, end: 4 + UNKNOWN.length },
    })
  })
})

describe("errors that are not markup", () => {
  test("provider errors pass through unchanged and are not retried", async () => {
    const providerError = Object.assign(new Error("503"), { status: 503 })
    const { error, attempts, parts } = await run([
      [text("partial "), { type: "throw", error: providerError }],
    ])
    expect(error).toBe(providerError)
    expect(attempts).toHaveLength(1)
    expect(visible(parts)).toBe("partial ")
  })

  test("a provider error during a retry passes through unchanged, with recovery-failed", async () => {
    const providerError = new Error("rate limited")
    const { error, events } = await run([[text(HERMES), finish()], [{ type: "throw", error: providerError }]])
    expect(error).toBe(providerError)
    expect(events.at(-1)).toEqual({ type: "recovery-failed", round: 1, error: providerError })
  })

  test("with finishRequired, a stream that ends without its finish is cut short: markup withheld, never retried", async () => {
    const { parts, attempts, events, threw } = await run([[text("Reading.\n"), text(QWEN.slice(0, 40))]], {
      finishRequired: true,
    })
    expect(threw).toBe(false)
    expect(attempts).toHaveLength(1)
    // Neither shown as text nor completed with an invented finish.
    expect(parts).toEqual([text("Reading.\n")])
    expect(events).toEqual([
      expect.objectContaining({
        type: "markup-detected",
        recoverable: false,
        reason: "provider-error",
        text: QWEN.slice(0, 40),
      }),
    ])
  })

  test("without finishRequired, the end of the stream is the end of the response", async () => {
    const { attempts, events } = await run([[text(QWEN)], [call("read_file"), finish()]])
    expect(attempts).toHaveLength(2)
    expect(events.map((e) => e.type)).toContain("recovery-succeeded")
  })

  test("a retry whose stream reports a provider error, or is cut short, ends with recovery-failed", async () => {
    const failedPart = { type: "other", raw: "error chunk", failed: true } as const
    const reported = await run([
      [text(HERMES), finish()],
      [text("Part"), failedPart, finish()],
    ])
    expect(reported.threw).toBe(false)
    expect(reported.events.at(-1)).toEqual({ type: "recovery-failed", round: 1, error: "error chunk" })
    const cut = await run([[text(HERMES), finish()], [text("Part")]], { finishRequired: true })
    expect(cut.threw).toBe(false)
    expect(cut.events.at(-1)).toMatchObject({ type: "recovery-failed", round: 1, error: expect.any(Error) })
    expect(cut.events.some((e) => e.type === "recovery-succeeded")).toBe(false)
  })

  test("an attempt function that rejects is a provider error", async () => {
    const providerError = new Error("connect ECONNREFUSED")
    const parts: unknown[] = []
    await expect(
      (async () => {
        for await (const part of recoverToolCalls({
          tools: ["bash"],
          attempt: () => Promise.reject(providerError),
        })) {
          parts.push(part)
        }
      })(),
    ).rejects.toBe(providerError)
  })

  test("tool errors, denials and timeouts are ordinary parts and never trigger recovery", async () => {
    const script = [
      call("bash"),
      other("tool-error: timeout"),
      other("tool-denied"),
      text("The tool timed out."),
      finish(),
    ]
    const { attempts, parts } = await run([script])
    expect(attempts).toHaveLength(1)
    expect(parts).toEqual(script)
  })

  test("a throwing event listener never breaks the turn", async () => {
    const { attempts, error, parts } = await run(
      [
        [text(HERMES), finish()],
        [text("done"), finish()],
      ],
      {
        options: {
          onEvent: () => {
            throw new Error("listener bug")
          },
        },
      },
    )
    expect(error).toBeUndefined()
    expect(attempts).toHaveLength(2)
    expect(visible(parts)).toBe("done")
  })
})

describe("cancellation", () => {
  test("an abort before the first attempt starts nothing", async () => {
    const controller = new AbortController()
    const reason = new Error("cancelled")
    controller.abort(reason)
    const { attempts, error } = await run([[text("hi"), finish()]], { signal: controller.signal })
    expect(attempts).toHaveLength(0)
    expect(error).toBe(reason)
  })

  test("an abort mid-stream aborts the attempt's signal and surfaces the reason", async () => {
    const controller = new AbortController()
    const { attempts, error, parts } = await run([[text("one "), { type: "hang" }]], {
      signal: controller.signal,
      onPart: () => {
        controller.abort(new Error("stop"))
      },
    })
    expect(visible(parts)).toBe("one ")
    expect(attempts).toHaveLength(1)
    expect(attempts[0]!.signal.aborted).toBe(true)
    expect(error).toEqual(new Error("stop"))
  })

  test("an abort during recovery ends with code aborted and starts no new attempt", async () => {
    const controller = new AbortController()
    const { attempts, error } = await run([[text(HERMES), finish()], [text("never")]], {
      signal: controller.signal,
      options: {
        persistFailed: () => {
          controller.abort(new Error("user left"))
        },
      },
    })
    expect(attempts).toHaveLength(1)
    expect(error).toMatchObject({ code: "aborted", cause: new Error("user left") })
  })

  test("an abort during the retry ends with code aborted", async () => {
    const controller = new AbortController()
    const { attempts, error } = await run(
      [
        [text(HERMES), finish()],
        [text("partial "), { type: "hang" }],
      ],
      {
        signal: controller.signal,
        onPart: (part) => {
          if (part.type === "text" && part.text === "partial ") controller.abort()
        },
      },
    )
    expect(attempts).toHaveLength(2)
    expect(attempts[1]!.signal.aborted).toBe(true)
    expect(ToolCallRecoveryError.isInstance(error) && error.code).toBe("aborted")
  })

  test("a consumer break closes the in-flight attempt and ends silently", async () => {
    const script = [
      text("Hello, world. "),
      text("More prose. "),
      text("Even more. "),
      text("The end."),
      finish(),
    ]
    const { attempts, error, parts } = await run([script], { onPart: () => true })
    expect(error).toBeUndefined()
    expect(parts).toHaveLength(1)
    expect(attempts[0]!.closed).toBe(true)
    expect(attempts[0]!.signal.aborted).toBe(true)
    // The attempt was not read to its end: reading stopped with the consumer.
    expect(attempts[0]!.produced).toBeLessThan(script.length)
  })

  test("a consumer break at attempt-start starts no retry", async () => {
    const { attempts } = await run([[text(HERMES), finish()], [finish()]], {
      onPart: (part) => part.type === "attempt-start",
    })
    expect(attempts).toHaveLength(1)
  })
})

describe("cancellation, attempts that settle on abort (settlesOnAbort)", () => {
  // Without the race per part, each abort must end the turn exactly as the raced turn does: the
  // same parts, the same error, the same attempts.
  const modes = [
    ["raced (settlesOnAbort unset)", undefined],
    ["settlesOnAbort", true],
  ] as const

  test.each(modes)(
    "%s: an abort mid-stream ends with the reason, not the provider's error",
    async (_, mode) => {
      const controller = new AbortController()
      const reason = new Error("stop")
      const { attempts, error, parts } = await run([[text("one "), { type: "wait" }, text("never")]], {
        signal: controller.signal,
        settlesOnAbort: mode,
        onPart: () => {
          controller.abort(reason)
        },
      })
      expect(visible(parts)).toBe("one ")
      expect(attempts).toHaveLength(1)
      expect(attempts[0]!.signal.aborted).toBe(true)
      expect(attempts[0]!.closed).toBe(true)
      expect(error).toBe(reason)
    },
  )

  test.each(modes)("%s: a part the attempt still gives after the abort is not shown", async (_, mode) => {
    const controller = new AbortController()
    const reason = new Error("stop")
    const { error, parts } = await run([[text("one "), text("two "), finish()]], {
      signal: controller.signal,
      settlesOnAbort: mode,
      onPart: () => {
        controller.abort(reason)
      },
    })
    expect(parts).toEqual([text("one ")])
    expect(error).toBe(reason)
  })

  test.each(modes)("%s: an abort during the retry ends with code aborted", async (_, mode) => {
    const controller = new AbortController()
    const { attempts, error, events } = await run(
      [
        [text(HERMES), finish()],
        [text("partial "), { type: "wait" }],
      ],
      {
        signal: controller.signal,
        settlesOnAbort: mode,
        onPart: (part) => {
          if (part.type === "text" && part.text === "partial ") controller.abort()
        },
      },
    )
    expect(attempts).toHaveLength(2)
    expect(attempts[1]!.signal.aborted).toBe(true)
    expect(ToolCallRecoveryError.isInstance(error) && error.code).toBe("aborted")
    expect(events.at(-1)).toMatchObject({ type: "recovery-failed", round: 1 })
  })

  test.each(modes)("%s: an abort while the retry starts starts no stream", async (_, mode) => {
    const controller = new AbortController()
    const { attempts, error, parts } = await run([[text(HERMES), finish()], [text("never")]], {
      signal: controller.signal,
      settlesOnAbort: mode,
      onPart: (part) => {
        if (part.type === "attempt-start") controller.abort(new Error("user left"))
      },
    })
    expect(attempts).toHaveLength(1)
    expect(parts.map((part) => part.type)).toEqual(["attempt-start"])
    expect(error).toMatchObject({ code: "aborted", cause: new Error("user left") })
  })

  test("settlesOnAbort: an attempt whose start settles only on abort ends with the reason", async () => {
    const controller = new AbortController()
    const reason = new Error("gone")
    let attempts = 0
    const turn = recoverToolCalls<string>({
      tools: ["read_file"],
      signal: controller.signal,
      settlesOnAbort: true,
      attempt: (_round, { signal }) => {
        attempts++
        // The request itself waits: it rejects with its own error once its signal aborts.
        return new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => reject(new Error("request aborted")), { once: true })
        })
      },
    })
    const next = turn.next()
    controller.abort(reason)
    await expect(next).rejects.toBe(reason)
    expect(attempts).toBe(1)
  })

  test("unset: an attempt that ignores its signal is still cut at once by the race", async () => {
    const controller = new AbortController()
    const { error, attempts } = await run([[text("one "), { type: "hang" }]], {
      signal: controller.signal,
      onPart: () => {
        controller.abort(new Error("stop"))
      },
    })
    expect(error).toEqual(new Error("stop"))
    expect(attempts[0]!.signal.aborted).toBe(true)
  })

  test("a clean turn with settlesOnAbort passes the very same parts through", async () => {
    const script = [text("Hello "), other("meta"), text("world."), finish()]
    const { parts, error } = await run([script], {
      signal: new AbortController().signal,
      settlesOnAbort: true,
    })
    expect(error).toBeUndefined()
    for (const [i, p] of parts.entries()) expect(p).toBe(script[i])
    expect(parts).toHaveLength(script.length)
  })
})

describe("reasoning", () => {
  test("a call inside reasoning with no answer after it is recovered (Kimi-K2-Thinking, MiniMax)", async () => {
    const { attempts, parts } = await run([
      [reasoning("I will read it. "), reasoning(HERMES), finish()],
      [finish()],
    ])
    expect(attempts).toHaveLength(2)
    expect(visible(parts, "reasoning")).toBe("I will read it. ")
  })

  test("a rehearsal in reasoning followed by an answer is withheld but never retried (Qwen3, DeepSeek)", async () => {
    const { attempts, parts, events } = await run([
      [reasoning("Plan: "), reasoning(HERMES), text("The answer is 4."), finish()],
    ])
    expect(attempts).toHaveLength(1)
    expect(visible(parts, "reasoning")).toBe("Plan: ")
    expect(visible(parts)).toBe("The answer is 4.")
    expect(events).toMatchObject([
      {
        type: "markup-detected",
        channel: "reasoning",
        recoverable: false,
        markup: { inReasoning: true, answerFollows: true },
      },
    ])
  })

  test("reasoning: ignore never recovers from reasoning; recover always does", async () => {
    const script = [reasoning(HERMES), finish()]
    expect((await run([script, [finish()]], { options: { reasoning: "ignore" } })).attempts).toHaveLength(1)
    const answered = [reasoning(HERMES), text("Answer."), finish()]
    expect((await run([answered, [finish()]], { options: { reasoning: "recover" } })).attempts).toHaveLength(
      2,
    )
  })

  test("inline <think> in the text: a rehearsal followed by an answer is not retried", async () => {
    const { attempts, parts } = await run([
      [text(`<think>maybe ${HERMES}</think>`), text("Answer."), finish()],
    ])
    expect(attempts).toHaveLength(1)
    expect(visible(parts)).toBe("<think>maybe </think>Answer.")
  })

  test("inline <think> in the text: a call in reasoning with nothing after it is recovered", async () => {
    const { attempts } = await run([[text(`<think>I'll call it. ${HERMES}</think>`), finish()], [finish()]])
    expect(attempts).toHaveLength(2)
  })
})

describe("unknown tool calls", () => {
  test("a structured call to a tool not offered is reported and passed through", async () => {
    const { parts, events, attempts } = await run([[call("rm_rf", '{"path": "/"}'), finish()]])
    expect(attempts).toHaveLength(1)
    expect(parts).toEqual([call("rm_rf", '{"path": "/"}'), finish()])
    expect(events).toEqual([{ type: "unknown-tool-call", toolName: "rm_rf", params: '{"path": "/"}' }])
  })
})

describe("API misuse throws at once", () => {
  test("runTurn: no recover plan, no attempt function", () => {
    const plan = planTurn(resolveRecoveryOptions({}), { tools: ["bash"] })
    if (plan.kind !== "recover") throw new Error("a recover plan")
    // @ts-expect-error — a skip plan is not run
    expect(() => runTurn({ kind: "skip", reason: "no-tools" }, { attempt: async function* () {} })).toThrow(
      TypeError,
    )
    // @ts-expect-error — no attempt function
    expect(() => runTurn(plan, {})).toThrow(TypeError)
    // @ts-expect-error — not a signal
    expect(() => runTurn(plan, { attempt: async function* () {}, signal: {} })).toThrow(TypeError)
  })

  test("recoverToolCalls: invalid input and options", () => {
    // @ts-expect-error — no attempt function
    expect(() => recoverToolCalls({ tools: [] })).toThrow(TypeError)
    // @ts-expect-error — tools is not an array
    expect(() => recoverToolCalls({ tools: "bash", attempt: async function* () {} })).toThrow(TypeError)
    expect(() =>
      recoverToolCalls({ tools: [], attempt: async function* () {}, options: { maxRecoveries: -1 } }),
    ).toThrow(RangeError)
    expect(() =>
      recoverToolCalls({
        tools: [],
        attempt: async function* () {},
        // @ts-expect-error — not a placement
        options: { instructionPlacement: "assistant" },
      }),
    ).toThrow(TypeError)
  })
})

describe("persistFailed sees every withheld malformed response", () => {
  const collect = () => {
    const seen: FailedResponse[] = []
    return { seen, persistFailed: async (failed: FailedResponse) => void seen.push(failed) }
  }

  test("the second leak that ends the turn is persisted as repeated, after the retried one", async () => {
    const { seen, persistFailed } = collect()
    const { error } = await run(
      [
        [text(HERMES), finish()],
        [text(QWEN), finish()],
      ],
      { options: { persistFailed } },
    )
    expect(ToolCallRecoveryError.isInstance(error) && error.code).toBe("repeated-markup")
    expect(seen.map((f) => [f.outcome, f.round, f.rounds, f.format, f.tools])).toEqual([
      ["retried", 0, 1, "hermes", ["read_file", "bash"]],
      ["repeated", 1, 2, "qwen3-coder", ["read_file", "bash"]],
    ])
    expect(seen[1]!.text).toBe(QWEN)
  })

  test("a leak with the turn's budget spent by earlier requests is persisted as repeated", async () => {
    const { seen, persistFailed } = collect()
    const { error, attempts } = await run([[text(HERMES), finish()]], {
      options: { persistFailed },
      recoveriesBefore: 1,
    })
    expect(attempts).toHaveLength(1)
    expect(ToolCallRecoveryError.isInstance(error) && error.code).toBe("repeated-markup")
    expect(seen).toMatchObject([
      { outcome: "repeated", round: 0, rounds: 1, recoveriesBefore: 1, text: HERMES },
    ])
  })

  test("markup naming no offered tool is persisted as not-offered, and the answer stands", async () => {
    const { seen, persistFailed } = collect()
    const { parts, threw } = await run([[text("Hi "), text(UNKNOWN), finish()]], {
      options: { persistFailed },
    })
    expect(threw).toBe(false)
    expect(visible(parts)).toBe("Hi ")
    expect(seen).toMatchObject([
      { outcome: "not-offered", round: 0, format: "hermes", text: `Hi ${UNKNOWN}` },
    ])
    expect(seen[0]!.markup.map((m) => m.toolName)).toEqual(["launch_rockets"])
  })

  test("a hook failing at the turn's end changes nothing: the turn ends as decided", async () => {
    const failing = { persistFailed: () => Promise.reject(new Error("disk full")) }
    const kept = await run([[text(UNKNOWN), finish("f")]], { options: failing })
    expect(kept.threw).toBe(false)
    expect(kept.parts).toEqual([finish("f")])
    const spent = await run([[text(HERMES), finish()]], { options: failing, recoveriesBefore: 1 })
    expect(ToolCallRecoveryError.isInstance(spent.error) && spent.error.code).toBe("repeated-markup")
  })

  test("the request's model, from the plan, is in each failed response", async () => {
    const seen: FailedResponse[] = []
    const plan = planTurn(resolveRecoveryOptions({ persistFailed: (failed) => void seen.push(failed) }), {
      tools: ["read_file"],
      model: "qwen3-coder-30b",
    })
    if (plan.kind === "skip") throw new Error("skipped")
    const parts = runTurn(plan, {
      attempt: async function* () {
        yield { type: "text", text: HERMES }
        yield { type: "finish", raw: "f" }
      },
    })
    await expect(async () => {
      for await (const _ of parts);
    }).rejects.toMatchObject({ code: "repeated-markup" })
    expect(seen.map((f) => f.model)).toEqual(["qwen3-coder-30b", "qwen3-coder-30b"])
  })
})
