import { describe, expect, it } from "vitest"
import { main } from "../src/main.ts"
import { visibleWidth } from "../src/style.ts"
import { testIo } from "./support.ts"

describe("demo", () => {
  it("plays both scenarios through the openai, AI SDK, Effect and LangChain adapters and the proxy, and exits 0", async () => {
    // A wide terminal: the trace's lines are matched whole here; wrapping is tested below.
    const io = testIo({ columns: 1000 })
    // No wall-clock assertion: under `pnpm check` every package's suite shares two cores, so a
    // timed unit test is flaky. The demo's speed (≈1 s built, piped) is measured and reported, not tested.
    const code = await main(["demo"], io)
    const out = io.stdout.text()
    expect(io.stderr.text()).toBe("")
    expect(code, out).toBe(0)

    // One section per adapter, two scenarios each.
    const sections = out.split("\n━━ ").slice(1)
    expect(sections.map((section) => section.split(" ")[0])).toEqual([
      "openai",
      "AI",
      "Effect",
      "LangChain",
      "proxy",
    ])
    for (const section of sections) {
      const [first, second] = section.split("  scenario 2 · ")
      // Scenario 1: prose streams, the leak is flagged and held back, persisted, retried with the
      // instruction, the structured call runs the real tool, the answer arrives.
      expect(first).toMatch(
        new RegExp(
          [
            "user {6}Which port does the dev server listen on\\? Check src/server\\.ts\\.",
            "model {5}I'll read the server entry point to find the port\\.",
            "detector  qwen3-coder markup: a read_file call written as text \\(opening envelope missing, closing present\\)",
            " {14}held back, \\d+ chars: <function=read_file>⏎<parameter=path>⏎src/server\\.ts",
            "recovery  no structured call in the response: retry 1 of 1",
            'persist   failed response saved with status "failed" → \\.agent/failed-responses\\.jsonl \\(the first response, \\d+ chars\\)',
            // The line is printed only when the retry carried the whole default instruction.
            'retry     request 2 re-sends the request without the malformed response, with the instruction: "[^"\\n]+',
          ].join("[\\s\\S]*?"),
        ),
      )
      expect(first).toMatch(
        /tool-call read_file \{"path":"src\/server\.ts"\} \(structured call\)\n\s+tool {6}read_file ran: 7 lines of src\/server\.ts from disk/,
      )
      expect(first).toMatch(
        /model {5}The dev server listens on port 8080 \(set PORT to override it\), bound to 127\.0\.0\.1\./,
      )
      expect(first).toMatch(/ok {8}the user saw prose and the answer, never the markup/)
      // Scenario 2: the retry leaks again; the turn ends with the explicit error.
      expect(second).toMatch(
        new RegExp(
          [
            "user {6}Run the test suite and tell me what fails\\.",
            "detector  qwen3-coder markup: a bash call",
            "persist",
            "retry {5}request 2 ",
            "model {5}Running the tests now\\.",
            "detector  hermes markup: a bash call written as text \\(opening envelope present, closing present\\)",
            'error {5}ToolCallRecoveryError code "repeated-markup": ',
            "ok {8}the turn ended with the explicit error, never silence",
          ].join("[\\s\\S]*?"),
        ),
      )
      expect(second).not.toContain("tool-call")
    }

    // The markup is on the terminal only where the trace quotes what was held back (a scenario
    // title names the missing <tool_call>, which is prose).
    for (const line of out.split("\n")) {
      if (/<function=|<\/tool_call>|"arguments"|<tool_call>⏎/.test(line))
        expect(line).toMatch(/^ {14}held back, \d+ chars: /)
    }

    // The summary table: a row per adapter and scenario, every check passed.
    for (const adapter of ["openai", "ai-sdk", "effect", "langchain", "proxy"]) {
      expect(out).toMatch(new RegExp(`\\n  ${adapter} +recovered +✓✓✓✓✓ +✓ port 8080 +3 +\\d`))
      expect(out).toMatch(new RegExp(`\\n  ${adapter} +leaks-twice +✓✓✓✓– +✓ repeated-markup +2 +\\d`))
    }
    expect(out).toMatch(/\n✓ 10 turns through 5 adapters behaved as shown · \d/)
    expect(out).not.toContain("✗")
    // Ten turns through five adapters (with the proxy's own server): a few seconds built and
    // piped, ten times that when every package's suite shares two loaded cores.
  }, 300_000)

  it("wraps the trace to the terminal's width, continuing under the label, and loses no word", async () => {
    const narrow = testIo({ columns: 80 })
    const wide = testIo({ columns: 1000 })
    expect(await main(["demo", "--only", "openai"], narrow)).toBe(0)
    expect(await main(["demo", "--only", "openai"], wide)).toBe(0)
    const lines = narrow.stdout.text().split("\n")
    for (const line of lines) expect(visibleWidth(line), line).toBeLessThanOrEqual(80)
    expect(lines.some((line) => /^ {14}\S/.test(line) && !line.includes("held back"))).toBe(true)
    expect(
      wide.stdout
        .text()
        .split("\n")
        .some((line) => visibleWidth(line) > 80),
    ).toBe(true)
    // The same words in the same order (times, ports and the scratch path differ between runs, and
    // with the times the width of the table's rule).
    const words = (text: string) =>
      text
        .split(/\s+/)
        .filter((word) => !word.includes("/tmp") && !word.includes("127.0.0.1") && !/^─+$/.test(word))
        .map((word) => word.replace(/\d+(\.\d+)?/g, "#"))
    expect(words(narrow.stdout.text())).toEqual(words(wide.stdout.text()))
  }, 120_000)

  it("runs one adapter with --only, and colours the trace on a terminal", async () => {
    const io = testIo({ tty: true })
    expect(await main(["demo", "--only", "openai"], io)).toBe(0)
    const out = io.stdout.text()
    expect(out).toContain("\u001b[")
    const plain = out.replace(/\u001b\[[0-9;]*m/g, "")
    expect(plain).toContain("━━ openai")
    expect(plain).not.toContain("━━ AI SDK")
    expect(plain).toMatch(/✓ 2 turns through 1 adapter behaved as shown/)
  }, 30_000)
})
