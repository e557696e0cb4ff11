/**
 * End to end through the real detector: for every format of FORMATS.md and every leak variant
 * the testing kit writes (labelled with what a correct detector reports), embedded in hard prose
 * and cut into deltas anywhere, the consumer sees the prose and nothing of the leak (whitespace
 * between calls aside), and the turn retries exactly when the labels say the leak is
 * recoverable.
 *
 * run-turn.prop.test.ts proves that runTurn shows exactly what the detector releases; this file
 * holds the detector to the labels, so that "no markup text ever reaches the consumer" is proven
 * for the whole pipeline and not only relative to the detector.
 */
import type { FormatId } from "@tool-rescue/detector"
import { chunked, type LeakVariant, leakedCall, prose } from "@tool-rescue/testing"
import fc from "fast-check"
import { expect, test } from "vitest"
import { type OutputPart, runTurn } from "../src/index.ts"

const TOOLS = ["read_file", "bash"]

interface Gap {
  /** Where the leak sits: between prose, ending the response, or forming it (start-anchored). */
  readonly at: "mid" | "end" | "anchored"
  readonly leak: string
}

/**
 * (format, variant) pairs where the detector and the testing kit's labels disagree today: the
 * leak is shown, or its verdict differs from the label (`recoverable: true` for every example
 * here). Found by the property below and reported to the detector's owner. The property skips
 * them; each has a deterministic `test.fails`, which turns red once the detector handles it, so
 * that the entry is deleted here and the property covers it again.
 */
const KNOWN_DETECTOR_GAPS: ReadonlyMap<string, Gap> = new Map<string, Gap>([
  [
    "deepseek-dsml/missing-opening",
    {
      at: "mid",
      leak: '<｜DSML｜invoke name="bash">\n<｜DSML｜parameter name="x" string="false">true</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
    },
  ],
  [
    "deepseek-dsml/bare",
    {
      at: "end",
      leak: '<｜DSML｜invoke name="bash">\n<｜DSML｜parameter name="url" string="true">/a</｜DSML｜parameter>\n</｜DSML｜invoke>',
    },
  ],
  [
    "minimax-m2/missing-opening",
    {
      at: "mid",
      leak: '<invoke name="read_file">\n<parameter name="path">a.ts</parameter>\n</invoke>\n</minimax:tool_call>',
    },
  ],
  [
    "minimax-m3/missing-opening",
    {
      at: "mid",
      leak: ']<]minimax[>[<invoke name="read_file">]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>',
    },
  ],
  [
    "minimax-m3/bare",
    {
      at: "end",
      leak: ']<]minimax[>[<invoke name="bash">]<]minimax[>[<query>w]<]minimax[>[</query>]<]minimax[>[</invoke>',
    },
  ],
  [
    "functionary/complete",
    { at: "end", leak: '>>>read_file\n{"command": 77213, "url": true}>>>bash\n{"url": 414}' },
  ],
  ["functionary/truncated", { at: "end", leak: '>>>bash\n{"limit": 20205}>>>read_file\n{"url": "(' }],
  [
    "glm/missing-closing",
    {
      at: "end",
      leak: "<tool_call>read_file<arg_key>x</arg_key><arg_value>ldXcd</arg_value></tool_call>\n<tool_call>bash",
    },
  ],
  [
    "step3/missing-opening",
    {
      at: "mid",
      leak: '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="bash">\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>',
    },
  ],
  [
    "step3/bare",
    {
      at: "end",
      leak: '<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="read_file">\n<steptml:parameter name="url">Cnbrv6</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>',
    },
  ],
  ["pythonic/truncated", { at: "anchored", leak: '[bash(city="fj65-ZizkB", content="(' }],
])

const gap = (format: FormatId, variant: LeakVariant) => KNOWN_DETECTOR_GAPS.has(`${format}/${variant}`)

const nonWhitespace = (text: string) => text.replace(/\s+/g, "")

interface Case {
  readonly before: string
  readonly leak: string
  readonly after: string
  readonly recoverable: boolean
}

// Leaks that leave their envelope closed sit between two prose parts; leaks cut off by the end
// of the response end it; start-anchored leaks (bare JSON, pythonic lists) form the whole
// response, the only place they are evidence.
const closedLeak = leakedCall({ tools: TOOLS, unknownTools: true, closedOnly: true, anchored: "exclude" })
const endingLeak = leakedCall({ tools: TOOLS, unknownTools: true, anchored: "exclude" })
const anchoredLeak = leakedCall({ tools: TOOLS, anchored: "only" })
const hardProse = prose({ strays: false }).map((s) => s.text)

const aCase: fc.Arbitrary<Case> = fc.oneof(
  fc
    .record({ before: hardProse, leak: closedLeak, after: hardProse })
    .filter(({ leak }) => !gap(leak.labels.format, leak.labels.variant))
    .map(({ before, leak, after }) => ({
      before: `${before}\n\n`,
      leak: leak.text,
      after: `\n\n${after}`,
      recoverable: leak.labels.recoverable,
    })),
  fc
    .record({ before: hardProse, leak: endingLeak })
    .filter(({ leak }) => !gap(leak.labels.format, leak.labels.variant))
    .map(({ before, leak }) => ({
      before: `${before}\n\n`,
      leak: leak.text,
      after: "",
      recoverable: leak.labels.recoverable,
    })),
  anchoredLeak
    .filter((leak) => !gap(leak.labels.format, leak.labels.variant))
    .map((leak) => ({ before: "", leak: leak.text, after: "", recoverable: leak.labels.recoverable })),
)

async function runCase(deltas: readonly string[]): Promise<{ shown: string; attempts: number }> {
  let attempts = 0
  const parts: OutputPart<string>[] = []
  let first = true
  for await (const part of runTurn<string>({
    tools: TOOLS,
    attempt: async function* (round) {
      attempts++
      if (round > 0) {
        yield { type: "text", text: "Calling it properly now." }
      } else {
        for (const text of deltas) yield { type: "text", text }
      }
      yield { type: "finish", raw: `finish:${round}` }
    },
  })) {
    if (part.type === "attempt-start") first = false
    else if (first) parts.push(part)
  }
  return { shown: parts.map((p) => (p.type === "text" ? p.text : "")).join(""), attempts }
}

test("no character of a leak in any format reaches the consumer; retries follow the labels", async () => {
  await fc.assert(
    fc.asyncProperty(
      aCase.chain((c) => fc.record({ c: fc.constant(c), deltas: chunked(c.before + c.leak + c.after) })),
      async ({ c, deltas }) => {
        const { shown, attempts } = await runCase(deltas)
        expect(nonWhitespace(shown)).toBe(nonWhitespace(c.before + c.after))
        expect(attempts).toBe(c.recoverable ? 2 : 1)
      },
    ),
  )
})

for (const [key, { at, leak }] of KNOWN_DETECTOR_GAPS) {
  test.fails(`known detector gap, ${key}: the leak is withheld and recoverable`, async () => {
    const before = at === "anchored" ? "" : "I'll check.\n\n"
    const after = at === "mid" ? "\n\nDone." : ""
    const { shown, attempts } = await runCase([before + leak + after])
    expect(nonWhitespace(shown)).toBe(nonWhitespace(before + after))
    expect(attempts).toBe(2)
  })
}
