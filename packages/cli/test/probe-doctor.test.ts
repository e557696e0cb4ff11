import { type FormatId, formats } from "@tool-rescue/detector"
import { isRetryRequest } from "@tool-rescue/recovery/adapter"
import { leakedCall } from "@tool-rescue/testing"
import {
  type ReplayRequest,
  type ReplayServer,
  type ReplayStep,
  startReplayServer,
} from "@tool-rescue/testing/replay"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { main } from "../src/main.ts"
import { modelOwners } from "../src/probe/model-owners.ts"
import { type Diagnosis, diagnose } from "../src/probe/probe-doctor.ts"
import { probePrompts } from "../src/probe/probe-prompts.ts"
import type { ProbeRun } from "../src/probe/run-probe.ts"
import { detectServer, SERVER_IDS, SERVERS, type ServerId, TOOL_PARSERS } from "../src/probe/server-fixes.ts"
import { createResponseScan } from "../src/scan/response-scan.ts"
import { testIo } from "./support.ts"

/** What the probe's own scan reports for `text` (the format the doctor sees). */
function reported(text: string): FormatId | undefined {
  const scan = createResponseScan(["read_file", "bash", "search"], {})
  scan.text(text)
  return scan.end().find((finding) => finding.recoverable)?.markup.format
}

/**
 * A leaked `read_file` call in each format, one the probe reports as that format. Two formats
 * are never reported as themselves: `cline-xml` is opt-in (the probe does not look for it) and
 * `apriel` writes the same text as `jamba`; their rows are checked without a replay below.
 */
const UNREACHABLE: readonly FormatId[] = ["cline-xml", "apriel"]
const leaks = new Map<FormatId, string>()
for (const info of formats) {
  const samples = fc.sample(
    leakedCall({ tools: ["read_file"], format: info.id, variants: ["complete"], maxCalls: 1 }),
    { numRuns: 40, seed: 7 },
  )
  const sample = samples.find((candidate) => reported(candidate.text) === info.id)
  if (sample !== undefined) leaks.set(info.id, sample.text)
}

const promptOf = (request: ReplayRequest): number => {
  const user = request.body?.messages?.filter((message) => message.role === "user").at(-1)
  return probePrompts.indexOf(typeof user?.content === "string" ? user.content : "")
}
const call: ReplayStep = { toolCalls: [{ name: "read_file", arguments: '{"path":"package.json"}' }] }

let server: ReplayServer
beforeAll(async () => {
  // The model name carries the script: `<format>|every` leaks on every turn, `<format>|some` on
  // turns 1 and 3 (two of four), `<format>|once` on turn 1 only; `…|<server header>` sets the
  // `server` response header. Retries answer with a structured call.
  server = await startReplayServer({
    script: (request) => {
      const [format, mode, header] = String(request.body?.model).split("|")
      const headers = header === undefined ? {} : { server: header }
      const prompt = promptOf(request)
      const leaking =
        !isRetryRequest(request.rawBody) &&
        (mode === "every" || (mode === "some" && prompt % 2 === 1) || (mode === "once" && prompt === 1))
      return leaking ? { content: leaks.get(format as FormatId) ?? "", headers } : { ...call, headers }
    },
  })
})
afterAll(async () => {
  await server.close()
})

interface ProbeJson {
  diagnosis: Diagnosis
}

async function probe(
  model: string,
  runs: number,
  extra: string[] = [],
): Promise<{ json: ProbeJson; stdout: string }> {
  const io = testIo()
  const code = await main(
    ["probe", "--base-url", server.url, "--model", model, "--runs", String(runs), ...extra],
    io,
  )
  expect(io.stderr.text()).toBe("")
  expect(code).toBe(0)
  const stdout = io.stdout.text()
  return { json: extra.includes("--json") ? (JSON.parse(stdout) as ProbeJson) : ({} as ProbeJson), stdout }
}

/** Runs `tasks` a few at a time (the probes are independent; the replay server serves them all). */
async function pool<T>(tasks: readonly (() => Promise<T>)[], size = 6): Promise<T[]> {
  const results: T[] = []
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++
      results[index] = await tasks[index]!()
    }
  }
  await Promise.all(Array.from({ length: size }, worker))
  return results
}

describe("the doctor, each server × format against the replay server", () => {
  it("has a leak for every format the probe can see", () => {
    expect([...leaks.keys()].sort()).toEqual(
      formats
        .map((info) => info.id)
        .filter((id) => !UNREACHABLE.includes(id))
        .sort(),
    )
  })

  it.each(SERVER_IDS)(
    "%s: the fix for the leaked format, when every turn leaks and when two of four do",
    async (id) => {
      const rows = [...leaks.keys()]
      await pool(
        rows.flatMap((format) => [
          async () => {
            const { json } = await probe(`${format}|every`, 1, ["--server", id, "--json"])
            expect(json.diagnosis).toMatchObject({
              verdict: "server",
              reasons: ["most-turns"],
              format,
              server: { id, source: "flag" },
              fixes: [{ server: id, fix: SERVERS[id].fix(format) }],
            })
          },
          async () => {
            const { json } = await probe(`${format}|some`, 4, ["--server", id, "--json"])
            expect(json.diagnosis).toMatchObject({
              verdict: "server",
              reasons: ["one-format"],
              leaks: 2,
              runs: 4,
              format,
              fixes: [{ server: id, fix: SERVERS[id].fix(format) }],
            })
          },
        ]),
      )
      // 34 formats × 2 probes: seconds each server, far from this bound on a loaded machine.
    },
    300_000,
  )

  it("names the parser of the leaked format for vLLM and SGLang, and the template elsewhere", () => {
    for (const info of formats) {
      const parsers = TOOL_PARSERS[info.id]
      if (typeof parsers.vllm !== "object")
        expect(SERVERS.vllm.fix(info.id).check).toBe(
          parsers.vllm === undefined
            ? "`--tool-call-parser`"
            : `\`--enable-auto-tool-choice --tool-call-parser ${parsers.vllm}\``,
        )
      if (typeof parsers.sglang !== "object")
        expect(SERVERS.sglang.fix(info.id).check).toBe(
          parsers.sglang === undefined ? "`--tool-call-parser`" : `\`--tool-call-parser ${parsers.sglang}\``,
        )
      expect(SERVERS.llamacpp.fix(info.id).steps.join(" ")).toContain("`--jinja`")
      expect(SERVERS.ollama.fix(info.id).steps.join(" ")).toContain("`ollama show --template <model>`")
      expect(SERVERS.lmstudio.fix(info.id).check).toBe("the prompt template")
    }
    for (const format of UNREACHABLE)
      expect(SERVERS.vllm.fix(format).steps[0]).toContain("has no tool parser")
    expect(SERVERS.vllm.fix("qwen3-coder").check).toBe(
      "`--enable-auto-tool-choice --tool-call-parser qwen3_coder`",
    )
    expect(SERVERS.sglang.fix("hermes").check).toBe("`--tool-call-parser hermes`")
  })

  it("names each Hunyuan generation's own parser: vLLM hy_v3 and hy_v4, SGLang hunyuan for HY3 only", () => {
    // vLLM's `hunyuan_a13b` reads Hunyuan-A13B's JSON list, not the HY3 / HY v4 tags
    // (vllm/tool_parsers/__init__.py registers `hy_v3` and `hy_v4` for those).
    expect(SERVERS.vllm.fix("hunyuan").check).toBe(
      "`--enable-auto-tool-choice --tool-call-parser hy_v3` (HY3) or `--enable-auto-tool-choice --tool-call-parser hy_v4` (HY v4)",
    )
    expect(SERVERS.vllm.fix("hunyuan").steps.join(" ")).not.toContain("hunyuan_a13b")
    const sglang = SERVERS.sglang.fix("hunyuan")
    expect(sglang.check).toBe("`--tool-call-parser hunyuan` (HY3)")
    expect(sglang.steps[1]).toContain("SGLang has no tool parser for HY v4")
  })

  it("an occasional leak is the model's slip: no server fix", async () => {
    const { json } = await probe("qwen3-coder|once", 4, ["--server", "vllm", "--json"])
    expect(json.diagnosis).toMatchObject({ verdict: "occasional", leaks: 1, runs: 4, fixes: [] })
  })

  it("prints the fix on the terminal and as Markdown", async () => {
    const text = (await probe("qwen3-coder|every", 2, ["--server", "vllm"])).stdout
    expect(text).toContain(
      "doctor\n  2 of 2 turns leaked and every leak was in the qwen3-coder format: the server's tool parser or chat template likely does not match the model",
    )
    expect(text).toContain("Server: vLLM (from --server).")
    expect(text).toContain("vLLM: check --enable-auto-tool-choice --tool-call-parser qwen3_coder\n")
    const markdown = (await probe("hermes|every", 2, ["--server", "sglang", "--markdown"])).stdout
    expect(markdown).toContain("## Tool calls leaked as text (tool-rescue probe)")
    expect(markdown).toContain("| leaked → shown as text | **2/2 (100.0%)** | 0/2 (0.0%) |")
    expect(markdown).toContain(
      "- SGLang: check `--tool-call-parser hermes`\n  - Start SGLang with `--tool-call-parser hermes`",
    )
  })
})

describe("the doctor finds the server", () => {
  it("from the server header of the endpoint's answers", async () => {
    const { json } = await probe("glm|every|llama.cpp", 1, ["--json"])
    expect(json.diagnosis.server).toEqual({ id: "llamacpp", source: "header" })
    expect(json.diagnosis.fixes.map((fix) => fix.server)).toEqual(["llamacpp"])
  })

  it("prints each server's check when it recognises none", async () => {
    const { json, stdout } = await probe("kimi-k2|every", 1, []).then(async (text) => ({
      ...(await probe("kimi-k2|every", 1, ["--json"])),
      stdout: text.stdout,
    }))
    expect(json.diagnosis.server).toBeUndefined()
    expect(json.diagnosis.fixes.map((fix) => fix.server)).toEqual([...SERVER_IDS])
    expect(stdout).toContain("Server not recognised (pass --server vllm|sglang|llamacpp|ollama|lmstudio)")
  })

  it("from owned_by, the header, then the port; --server wins", async () => {
    expect(await modelOwners(server.url, "replay-model", "k", 5_000)).toEqual(["tool-rescue-replay"])
    expect(await modelOwners("http://127.0.0.1:9/v1", "m", "k", 5_000)).toEqual([])
    const cases: [Parameters<typeof detectServer>[0], ServerId | undefined, string | undefined][] = [
      [{ ownedBy: ["vllm"] }, "vllm", "owned_by"],
      [{ ownedBy: ["sglang"] }, "sglang", "owned_by"],
      [{ ownedBy: ["llamacpp"] }, "llamacpp", "owned_by"],
      [{ ownedBy: ["library"] }, "ollama", "owned_by"],
      [{ ownedBy: ["organization_owner"] }, "lmstudio", "owned_by"],
      [{ headers: { server: "llama.cpp" } }, "llamacpp", "header"],
      [{ headers: { server: "uvicorn" }, baseURL: "http://gpu:8000/v1" }, "vllm", "port"],
      [{ baseURL: "http://127.0.0.1:11434/v1" }, "ollama", "port"],
      [{ flag: "lmstudio", ownedBy: ["vllm"] }, "lmstudio", "flag"],
      [{ ownedBy: ["someone"], baseURL: "http://127.0.0.1:9999/v1" }, undefined, undefined],
    ]
    for (const [clues, id, source] of cases)
      expect(detectServer(clues)).toEqual(id === undefined ? undefined : { id, source })
  })
})

describe("diagnose", () => {
  const run = (outcome: ProbeRun["outcome"], format?: FormatId): ProbeRun => ({
    prompt: 0,
    outcome,
    latencyMs: 1,
    addedMs: undefined,
    format,
  })
  it("no leak, mixed formats, most turns", () => {
    expect(
      diagnose({ without: [run("tool-call")], with: [], serverHeader: undefined }, undefined).verdict,
    ).toBe("no-leaks")
    const mixed = [run("leak", "hermes"), run("leak", "glm"), run("tool-call"), run("tool-call"), run("text")]
    expect(diagnose({ without: mixed, with: [], serverHeader: undefined }, undefined).verdict).toBe(
      "occasional",
    )
    const most = [run("leak", "hermes"), run("leak", "glm"), run("leak", "glm"), run("text")]
    expect(diagnose({ without: most, with: [], serverHeader: undefined }, undefined)).toMatchObject({
      verdict: "server",
      reasons: ["most-turns"],
      format: "glm",
    })
  })
})
