import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
const corpusFile = fileURLToPath(new URL("../../testing/corpus/issues.jsonl", import.meta.url))

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/**
 * Runs the real executable (the source bin on this Node, with workspace packages resolved from
 * source), optionally feeding `stdin` from an async generator.
 */
function runBin(
  args: readonly string[],
  options: {
    nodeArgs?: readonly string[]
    stdin?: () => AsyncGenerator<string>
    env?: Record<string, string>
  } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(
      process.execPath,
      [...(options.nodeArgs ?? []), "--conditions=@tool-rescue/source", bin, ...args],
      {
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined, ...options.env },
        stdio: ["pipe", "pipe", "pipe"],
      },
    )
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", reject)
    child.on("close", (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        ms: performance.now() - started,
      }),
    )
    child.stdin.on("error", () => {})
    if (options.stdin === undefined) {
      child.stdin.end()
      return
    }
    const feed = options.stdin
    void (async () => {
      for await (const piece of feed()) {
        if (!child.stdin.write(piece)) await new Promise((done) => child.stdin.once("drain", done))
      }
      child.stdin.end()
    })()
  })
}

describe("the tool-rescue executable", () => {
  it("prints its version and help", async () => {
    const version = await runBin(["--version"])
    expect(version.code).toBe(0)
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
    const help = await runBin(["--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("tool-rescue <command> [options]")
  })

  it("scans the corpus file and exits 1 because it holds recoverable leaks", async () => {
    const run = await runBin(["scan", corpusFile])
    expect(run.code).toBe(1)
    expect(run.stdout).toContain("tool-rescue would retry these")
    expect(run.stderr).toBe("")
  })

  it("reports a bad command on one line with exit code 2", async () => {
    const run = await runBin(["scan", "--json"])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe("")
    expect(run.stderr).toBe(
      "tool-rescue scan: needs a file to read (or - for standard input) (see tool-rescue scan --help)\n",
    )
  })

  // 20 MB of old space, well below the 40 MB streamed, so a scan that kept its input would abort.
  // Recovery loads @opentelemetry/api only for its first span or count, never in a scan. The young
  // generation is capped at 1 MB: with V8's default size, a loaded machine could abort the run with
  // under 10 MB live (a scavenge's promotion guarantee, not retention).
  it("scans in constant memory: 40 MB through standard input under a 20 MB heap cap", async () => {
    const lines = 100_000
    const pad = "x".repeat(360)
    async function* generate(): AsyncGenerator<string> {
      for (let i = 0; i < lines; i += 1000) {
        const batch: string[] = []
        for (let j = i; j < i + 1000; j++) {
          const content =
            j % 1000 === 0
              ? "Reading.\n<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"
              : `Answer ${j} ${pad}`
          batch.push(
            JSON.stringify({
              id: `c${j}`,
              object: "chat.completion",
              choices: [{ index: 0, message: { role: "assistant", content } }],
            }),
          )
        }
        yield `${batch.join("\n")}\n`
      }
    }
    // A program that kept the input would need more than 40 MB of old space and abort. The cap
    // leaves room for the detector's compiled format tables (42 formats, about 3 MB: see the
    // detector's module-heap test) and for a collector that runs late on a loaded machine. With the
    // tables at 6.5 MB a 16 MB cap aborted now and then (2 of 4 runs); with 3.6 MB it passed 11
    // runs of 11 at a load of 7 to 10 on 2 cores, and 13 MB aborted: 20 MB keeps a margin.
    const run = await runBin(["scan", "-", "--tools", "read_file", "--json", "--excerpts", "0"], {
      nodeArgs: ["--max-old-space-size=20", "--max-semi-space-size=1"],
      stdin: generate,
    })
    expect(run.stderr).toBe("")
    expect(run.code).toBe(1)
    const report = JSON.parse(run.stdout) as {
      lines: number
      bytes: number
      responses: number
      recoverable: number
    }
    expect(report.lines).toBe(lines)
    expect(report.bytes).toBeGreaterThan(40_000_000)
    expect(report.responses).toBe(lines)
    expect(report.recoverable).toBe(lines / 1000)
  }, 60_000)
})
