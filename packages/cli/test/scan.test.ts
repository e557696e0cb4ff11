import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable } from "node:stream"
import { isRecoverable, scan } from "@tool-rescue/detector"
import { corpus } from "@tool-rescue/testing/corpus"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { main } from "../src/main.ts"
import type { ScanJson } from "../src/scan/scan-render.ts"
import { testIo } from "./support.ts"

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tool-rescue-scan-test-"))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, content)
  return path
}

const jsonl = (...values: unknown[]): string => `${values.map((value) => JSON.stringify(value)).join("\n")}\n`

async function scanJson(
  args: string[],
  stdin?: string,
): Promise<{ code: number; report: ScanJson; stderr: string }> {
  const io = testIo(stdin === undefined ? {} : { stdin })
  const code = await main(["scan", ...args, "--json", "--excerpts", "1000"], io)
  return { code, report: JSON.parse(io.stdout.text()) as ScanJson, stderr: io.stderr.text() }
}

const LEAK =
  "I'll read it.\n\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>"
/** With its opening envelope: markup even when the tool it names is not offered. */
const ENVELOPED =
  "Reading.\n<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>"
const CLEAN = "The file exports a single function."
const chatTools = [
  { type: "function", function: { name: "read_file", parameters: { type: "object" } } },
  { type: "function", function: { name: "bash", parameters: { type: "object" } } },
]
const completion = (id: string, content: string, extra: Record<string, unknown> = {}) => ({
  id,
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content, ...extra }, finish_reason: "stop" }],
})
const chunk = (id: string, delta: Record<string, unknown>, finish: string | null = null) => ({
  id,
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta, finish_reason: finish }],
})

describe("scan: the labelled corpus", () => {
  it("counts exactly what the detector and the default policy find in each sample, per format and per tool", async () => {
    const path = await file("corpus.jsonl", jsonl(...corpus))
    const { code, report } = await scanJson([path])

    // The oracle: the detector run directly on each sample with its offered tools.
    const byFormat = new Map<string, { markup: number; recoverable: number }>()
    const byTool = new Map<string, { markup: number; recoverable: number }>()
    let recoverable = 0
    let withLeaks = 0
    for (const sample of corpus) {
      const { markup } = scan(sample.text, { tools: sample.tools })
      const leaks = markup.filter((m) => isRecoverable(m))
      recoverable += leaks.length
      if (leaks.length > 0) withLeaks++
      for (const m of markup) {
        for (const [map, key] of [
          [byFormat, m.format],
          [byTool, m.toolName ?? ""],
        ] as const) {
          const counts = map.get(key) ?? { markup: 0, recoverable: 0 }
          counts.markup++
          if (isRecoverable(m)) counts.recoverable++
          map.set(key, counts)
        }
      }
    }
    expect(recoverable).toBeGreaterThan(10)
    expect(report.responses).toBe(corpus.length)
    expect(report.lines).toBe(corpus.length)
    expect(report.recoverable).toBe(recoverable)
    expect(report.responsesWithLeaks).toBe(withLeaks)
    expect(report.byFormat).toEqual(Object.fromEntries(byFormat))
    expect(report.byTool).toEqual(Object.fromEntries(byTool))
    expect(report.skipped).toBe(0)
    expect(code).toBe(1)
  })

  it("reports, line by line, the leaked tools each core sample is labelled with", async () => {
    const core = corpus.filter((sample) => sample.scope === "core")
    const path = await file("core.jsonl", jsonl(...core))
    const { report } = await scanJson([path])
    core.forEach((sample, index) => {
      const leaked = report.findings
        .filter(
          (f) => (f as { line: number }).line === index + 1 && (f as { recoverable: boolean }).recoverable,
        )
        .map((f) => (f as { tool: string }).tool)
      expect(leaked, sample.id).toEqual(sample.expect.tools)
      const ids = report.findings
        .filter((f) => (f as { line: number }).line === index + 1)
        .map((f) => (f as { id: string }).id)
      expect(ids.every((id) => id === sample.id)).toBe(true)
    })
  })

  it("prints a readable report with counts, excerpts and the exit code", async () => {
    const path = await file("corpus-text.jsonl", jsonl(...corpus))
    const io = testIo()
    expect(await main(["scan", path], io)).toBe(1)
    const out = io.stdout.text()
    expect(out).toContain(`${corpus.length} lines`)
    expect(out).toMatch(/format\s+markup\s+recoverable/)
    expect(out).toMatch(/qwen3-coder\s+\d+\s+\d+/)
    expect(out).toMatch(/line 1 L1\s+qwen3-coder\s+Glob\s+leak\s+<function=Glob>⏎<parameter=pattern>⏎\*\.md/)
    expect(out).toMatch(/✗ \d+ recoverable leaks in \d+ responses: tool-rescue would retry these\n$/)
    // No colour when stdout is not a terminal.
    expect(out).not.toContain("\u001b[")
  })
})

describe("scan: chat completions, requests and malformed lines", () => {
  it("takes offered tools from request lines and pairs, honours structured calls, and skips bad lines by number", async () => {
    const path = await file(
      "chat.jsonl",
      [
        JSON.stringify({ model: "m", messages: [{ role: "user", content: "read a.ts" }], tools: chatTools }),
        JSON.stringify(completion("c1", LEAK)),
        JSON.stringify(
          completion("c2", LEAK, {
            tool_calls: [{ id: "t", type: "function", function: { name: "read_file", arguments: "{}" } }],
          }),
        ),
        JSON.stringify({
          request: { model: "m", messages: [], tools: [chatTools[1]] },
          response: completion("c3", ENVELOPED),
        }),
        '{"id": "c4", "object": "chat.completion", "choices": [',
        "42",
        JSON.stringify({ hello: "world" }),
        "",
        JSON.stringify(completion("c5", CLEAN)),
      ].join("\n"),
    )
    const { code, report } = await scanJson([path])
    expect(code).toBe(1)
    expect(report.responses).toBe(4)
    expect(report.responsesWithMarkup).toBe(3)
    expect(report.recoverable).toBe(1)
    expect(report.responsesWithLeaks).toBe(1)
    expect(report.notRecoverable).toEqual({ "structured-call": 1, "not-offered": 1 })
    expect(report.byTool).toEqual({ read_file: { markup: 3, recoverable: 1 } })
    const findings = report.findings as {
      line: number
      id: string
      recoverable: boolean
      reason: string | null
    }[]
    expect(findings.map((f) => [f.line, f.id, f.recoverable, f.reason])).toEqual([
      [2, "c1", true, null],
      [3, "c2", false, "structured-call"],
      [4, "c3", false, "not-offered"],
    ])
    expect(report.skipped).toBe(3)
    expect(report.skippedRecords.map((s) => s.line)).toEqual([5, 6, 7])
    expect(report.skippedRecords[0]?.reason).toMatch(/^invalid JSON: /)
    expect(report.skippedRecords[1]?.reason).toBe("not a response record (a JSON number)")
    expect(report.skippedRecords[2]?.reason).toMatch(/^not a chat completion, chunk/)
  })

  it("lists skipped lines with their numbers in the text report", async () => {
    const path = await file("bad.jsonl", `${JSON.stringify(completion("ok", CLEAN))}\n{"oops"\n`)
    const io = testIo()
    expect(await main(["scan", path, "--tools", "read_file"], io)).toBe(0)
    expect(io.stdout.text()).toContain("skipped 1 record")
    expect(io.stdout.text()).toMatch(/line 2: invalid JSON: .+/)
    expect(io.stdout.text()).toContain("✓ no recoverable leaks")
  })

  it("uses --tools only for records that carry no tools, and says when a response had none", async () => {
    const path = await file("no-tools.jsonl", jsonl(completion("c1", ENVELOPED)))
    let result = await scanJson([path])
    expect(result.code).toBe(0)
    expect(result.report.markup).toBe(1)
    expect(result.report.recoverable).toBe(0)
    expect(result.report.responsesWithoutTools).toBe(1)
    expect(result.report.notRecoverable).toEqual({ "not-offered": 1 })
    result = await scanJson([path, "--tools", "bash, read_file"])
    expect(result.code).toBe(1)
    expect(result.report.recoverable).toBe(1)
    const io = testIo()
    await main(["scan", path], io)
    expect(io.stdout.text()).toContain("1 response had no offered tools (none recorded, no --tools)")
  })

  it("treats reasoning per the policy: a rehearsal followed by an answer is not a leak, a call in silent reasoning is", async () => {
    const path = await file(
      "reasoning.jsonl",
      jsonl(
        completion("answered", "The answer is 42.", { reasoning_content: LEAK }),
        completion("silent", "", { reasoning_content: LEAK }),
      ),
    )
    const { report } = await scanJson([path, "--tools", "read_file"])
    const findings = report.findings as {
      id: string
      channel: string
      recoverable: boolean
      reason: string | null
    }[]
    // Leaks are listed first.
    expect(findings.map((f) => [f.id, f.channel, f.recoverable, f.reason])).toEqual([
      ["silent", "reasoning", true, null],
      ["answered", "reasoning", false, "in-reasoning-answer-follows"],
    ])
    const ignore = await scanJson([path, "--tools", "read_file", "--reasoning", "ignore"])
    expect(ignore.report.recoverable).toBe(0)
    const recover = await scanJson([path, "--tools", "read_file", "--reasoning", "recover"])
    expect(recover.report.recoverable).toBe(2)
  })

  it("applies --evidence envelope: a bare call without any envelope marker stays text", async () => {
    const bare = "<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>"
    const path = await file("bare.jsonl", jsonl({ text: bare, tools: ["read_file"] }))
    expect((await scanJson([path])).report.recoverable).toBe(1)
    const envelope = await scanJson([path, "--evidence", "envelope"])
    expect(envelope.report.recoverable).toBe(0)
    expect(envelope.report.notRecoverable).toEqual({ "no-envelope": 1 })
  })

  it("reads the proxy's failed log without --tools: the offered tools, and the reasoning, are in each line", async () => {
    const call =
      "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"
    const record = {
      time: "2026-01-05T10:12:03.412Z",
      model: "qwen3-coder",
      protocol: "chat",
      route: "/v1/chat/completions",
      format: "qwen3-coder",
      tools: ["read_file"],
      outcome: "retried",
      round: 0,
      rounds: 1,
      recoveriesBefore: 0,
      markup: [],
    }
    const path = await file(
      "failed.jsonl",
      jsonl(
        { ...record, text: `Reading.\n${call}`, reasoning: "" },
        { ...record, text: "", reasoning: call },
      ),
    )
    const { code, report } = await scanJson([path, "--reasoning", "recover"])
    expect(code).toBe(1)
    expect(report).toMatchObject({ responses: 2, responsesWithoutTools: 0, recoverable: 2 })
  })

  it("leaves a fenced example alone", async () => {
    const fenced = corpus.find((sample) => sample.id === "L41")!
    const path = await file("fenced.jsonl", jsonl(fenced))
    const io = testIo()
    expect(await main(["scan", path], io)).toBe(0)
    expect(io.stdout.text()).toContain("0 with tool-call markup")
  })
})

describe("scan: streams", () => {
  const streamA = [
    chunk("s1", { role: "assistant", content: "" }),
    chunk("s1", { content: "Let me check.\n<func" }),
    chunk("s1", { content: "tion=read_file>\n<parameter=path>\na.ts\n</param" }),
    chunk("s1", { content: "eter>\n</function>\n</tool_call>" }, "stop"),
    {
      id: "s1",
      object: "chat.completion.chunk",
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 2 },
    },
  ]
  const streamB = [
    chunk("s2", { role: "assistant", content: "All " }),
    chunk("s2", { content: "good." }, "stop"),
  ]

  it("groups JSONL chunks by id and finds a marker split across chunks", async () => {
    const path = await file("chunks.jsonl", jsonl(...streamA, ...streamB))
    const { code, report } = await scanJson([path, "--tools", "read_file"])
    expect(code).toBe(1)
    expect(report.format).toBe("jsonl")
    expect(report.responses).toBe(2)
    expect(report.recoverable).toBe(1)
    expect((report.findings[0] as { line: number; id: string }).line).toBe(1)
    expect((report.findings[0] as { excerpt: string }).excerpt).toMatch(
      /^<function=read_file>\n<parameter=path>/,
    )
  })

  it("reads raw server-sent events, with comments, event lines and [DONE]", async () => {
    const sse = [
      ": keep-alive",
      ...streamA.flatMap((c) => [`data: ${JSON.stringify(c)}`, ""]),
      "data: [DONE]",
      "",
      "event: ignored",
      ...streamB.flatMap((c) => [`data:${JSON.stringify(c)}`, ""]),
      "data: [DONE]",
      "",
    ].join("\r\n")
    const path = await file("stream.sse", sse)
    const { code, report } = await scanJson([path, "--tools", "read_file"])
    expect(report.format).toBe("sse")
    expect(code).toBe(1)
    expect(report.responses).toBe(2)
    expect(report.recoverable).toBe(1)
    expect(report.skipped).toBe(0)
  })

  it("reads Responses API responses and Responses stream events, with the tools they record", async () => {
    const hermes = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>'
    const tools = [{ type: "function", name: "bash", parameters: {} }]
    const response = {
      id: "resp_1",
      object: "response",
      tools,
      output: [
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: `Listing.\n${hermes}` }],
        },
      ],
    }
    const events = [
      { type: "response.created", response: { id: "resp_2", object: "response", tools, output: [] } },
      { type: "response.output_text.delta", delta: "Listing.\n<tool_" },
      {
        type: "response.output_text.delta",
        delta: 'call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>',
      },
      { type: "response.completed", response: { id: "resp_2", object: "response", tools, output: [] } },
      { type: "response.created", response: { id: "resp_3", object: "response", tools, output: [] } },
      {
        type: "response.output_item.added",
        item: { type: "function_call", name: "bash", call_id: "c", arguments: "" },
      },
      { type: "response.output_text.delta", delta: hermes },
      { type: "response.completed", response: { id: "resp_3", object: "response", tools, output: [] } },
    ]
    const path = await file("responses.jsonl", jsonl(response, ...events))
    const { report } = await scanJson([path])
    expect(report.responses).toBe(3)
    expect(report.recoverable).toBe(2)
    expect(report.notRecoverable).toEqual({ "structured-call": 1 })
    expect((report.findings as { id: string }[]).map((f) => f.id)).toEqual(["resp_1", "resp_2", "resp_3"])
  })
})

describe("scan: other inputs", () => {
  it("reads plain text as one response", async () => {
    const path = await file("leak.txt", `Sure.\n${LEAK}\n`)
    const { code, report } = await scanJson([path, "--tools", "read_file"])
    expect(report.format).toBe("text")
    expect(code).toBe(1)
    expect(report.responses).toBe(1)
    expect(report.recoverable).toBe(1)
  })

  it("reads a pretty-printed JSON document whole", async () => {
    const path = await file(
      "doc.json",
      JSON.stringify([completion("a", LEAK), completion("b", CLEAN)], null, 2),
    )
    const { code, report } = await scanJson([path, "--tools", "read_file"])
    expect(report.format).toBe("json")
    expect(code).toBe(1)
    expect(report.responses).toBe(2)
    expect((report.findings[0] as { path: string }).path).toBe("[0]")
  })

  it("fails with one line and exit code 2 on an invalid JSON document", async () => {
    const path = await file("broken.json", '[\n  {"id": 1,\n  "choices": [}\n]\n')
    const io = testIo()
    expect(await main(["scan", path], io)).toBe(2)
    expect(io.stdout.text()).toBe("")
    expect(io.stderr.text()).toMatch(/^tool-rescue scan: .*broken\.json: not valid JSON: .+\n$/)
    expect(io.stderr.text().split("\n")).toHaveLength(2)
  })

  it("treats a JSONL file whose first line is malformed as JSONL", async () => {
    const path = await file("first-bad.jsonl", `{"truncated": \n${JSON.stringify(completion("a", LEAK))}\n`)
    const { report } = await scanJson([path, "--tools", "read_file"])
    expect(report.format).toBe("jsonl")
    expect(report.skippedRecords.map((s) => s.line)).toEqual([1])
    expect(report.recoverable).toBe(1)
  })

  it("reads standard input with -", async () => {
    const { code, report } = await scanJson(["-", "--tools", "read_file"], jsonl(completion("a", LEAK)))
    expect(code).toBe(1)
    expect(report.input).toBe("standard input")
    expect(report.recoverable).toBe(1)
  })

  it("says it is waiting when standard input is a terminal", async () => {
    const stdin = Object.assign(Readable.from([Buffer.from(jsonl(completion("a", CLEAN)))]), { isTTY: true })
    const io = testIo({ stdin })
    expect(await main(["scan", "-"], io)).toBe(0)
    expect(io.stderr.text()).toBe("reading standard input (end it with Ctrl-D)\n")
  })

  it("--format forces the reading", async () => {
    const path = await file("forced.jsonl", jsonl(completion("a", LEAK)))
    const { report } = await scanJson([path, "--format", "text", "--tools", "read_file"])
    expect(report.format).toBe("text")
    expect(report.responses).toBe(1)
  })

  it("fails with one line and exit code 2 for a missing file or a directory", async () => {
    let io = testIo({ cwd: dir })
    expect(await main(["scan", "nope.jsonl"], io)).toBe(2)
    expect(io.stderr.text()).toBe("tool-rescue scan: cannot read nope.jsonl: no such file\n")
    io = testIo()
    expect(await main(["scan", dir], io)).toBe(2)
    expect(io.stderr.text()).toBe(`tool-rescue scan: cannot read ${dir}: it is a directory\n`)
  })

  it("shows a progress line on a terminal only, and erases it", async () => {
    const path = await file("progress.jsonl", jsonl(completion("a", CLEAN)))
    const tty = testIo({ tty: true })
    await main(["scan", path], tty)
    expect(tty.stderr.text()).toMatch(
      /^\r\u001b\[2Kscanning .*progress\.jsonl · 1 line · .* · 1 response · 0 leaks\r\u001b\[2K$/,
    )
    const pipe = testIo()
    await main(["scan", path], pipe)
    expect(pipe.stderr.text()).toBe("")
  })
})
