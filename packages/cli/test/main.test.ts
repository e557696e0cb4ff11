import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { main } from "../src/main.ts"
import { testIo } from "./support.ts"

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string
}

describe("main", () => {
  it("prints the overview help with no arguments and with --help", async () => {
    for (const argv of [[], ["--help"], ["-h"], ["help"]]) {
      const io = testIo()
      expect(await main(argv, io)).toBe(0)
      expect(io.stdout.text()).toContain("Usage:\n  tool-rescue <command> [options]")
      expect(io.stdout.text()).toMatch(/demo[\s\S]*scan[\s\S]*probe/)
      expect(io.stdout.text()).toContain("Exit codes:")
      expect(io.stderr.text()).toBe("")
    }
  })

  it("prints the version from package.json", async () => {
    for (const flag of ["--version", "-v"]) {
      const io = testIo()
      expect(await main([flag], io)).toBe(0)
      expect(io.stdout.text()).toBe(`${pkg.version}\n`)
    }
  })

  it("prints each command's help", async () => {
    for (const [argv, first] of [
      [["scan", "--help"], "Usage: tool-rescue scan <file | -> [options]"],
      [["probe", "-h"], "Usage: tool-rescue probe --base-url <url> --model <id> [options]"],
      [["help", "demo"], "Usage: tool-rescue demo [options]"],
    ] as const) {
      const io = testIo()
      expect(await main(argv, io)).toBe(0)
      expect(io.stdout.text().split("\n")[0]).toBe(first)
    }
  })

  it("counts serve --max-recoveries per agent turn, as the READMEs do", async () => {
    const io = testIo()
    expect(await main(["serve", "--help"], io)).toBe(0)
    expect(io.stdout.text()).toMatch(
      /--max-recoveries <n> +retries per agent turn \(one user turn; default 1\)\n/,
    )
    expect(io.stdout.text()).not.toMatch(/per request/)
  })

  it("rejects an unknown command with one line and exit code 2", async () => {
    const io = testIo()
    expect(await main(["sacn", "x.jsonl"], io)).toBe(2)
    expect(io.stdout.text()).toBe("")
    expect(io.stderr.text()).toBe(
      "tool-rescue: unknown command 'sacn' (commands: demo, scan, probe, serve, report; see tool-rescue --help)\n",
    )
  })

  it("rejects an unknown top-level option and an unknown help topic", async () => {
    let io = testIo()
    expect(await main(["--verbose"], io)).toBe(2)
    expect(io.stderr.text()).toMatch(/^tool-rescue: unknown option --verbose .*\n$/)
    io = testIo()
    expect(await main(["help", "nope"], io)).toBe(2)
    expect(io.stderr.text()).toBe(
      "tool-rescue: no help for 'nope' (commands: demo, scan, probe, serve, report)\n",
    )
  })

  it("turns argument errors of a command into one usage line and exit code 2", async () => {
    const cases: [string[], string][] = [
      [
        ["scan"],
        "tool-rescue scan: needs a file to read (or - for standard input) (see tool-rescue scan --help)\n",
      ],
      [["scan", "a", "b"], "tool-rescue scan: unexpected argument 'b' (see tool-rescue scan --help)\n"],
      [
        ["scan", "a", "--frobnicate"],
        "tool-rescue scan: unknown option --frobnicate (see tool-rescue scan --help)\n",
      ],
      [["scan", "a", "--tools"], "tool-rescue scan: --tools needs a value (see tool-rescue scan --help)\n"],
      [
        ["scan", "a", "--format", "xml"],
        "tool-rescue scan: --format must be one of auto, jsonl, json, sse, text, got 'xml' (see tool-rescue scan --help)\n",
      ],
      [
        ["scan", "a", "--excerpts=-1"],
        "tool-rescue scan: --excerpts must be an integer from 0 to 10000, got '-1' (see tool-rescue scan --help)\n",
      ],
      [
        ["scan", "a", "--excerpts", "-1"],
        "tool-rescue scan: --excerpts needs a value (write --excerpts=<value> for a value that starts with -) (see tool-rescue scan --help)\n",
      ],
      [
        ["probe", "--model", "m"],
        "tool-rescue probe: --base-url is required (e.g. http://127.0.0.1:8000/v1) (see tool-rescue probe --help)\n",
      ],
      [
        ["probe", "--base-url", "localhost:8000"],
        "tool-rescue probe: --base-url must be http(s), got 'localhost:8000' (see tool-rescue probe --help)\n",
      ],
      [
        ["probe", "--base-url", "http://127.0.0.1:1/v1"],
        "tool-rescue probe: --model is required (see tool-rescue probe --help)\n",
      ],
      [
        ["probe", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--runs", "0"],
        "tool-rescue probe: --runs must be an integer from 1 to 1000, got '0' (see tool-rescue probe --help)\n",
      ],
      [
        ["demo", "--only", "mastra"],
        "tool-rescue demo: --only must be one of openai, ai-sdk, effect, langchain, proxy, got 'mastra' (see tool-rescue demo --help)\n",
      ],
    ]
    for (const [argv, line] of cases) {
      const io = testIo()
      expect(await main(argv, io), argv.join(" ")).toBe(2)
      expect(io.stderr.text(), argv.join(" ")).toBe(line)
      expect(io.stdout.text()).toBe("")
    }
  })
})
