import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { main } from "../src/main.ts"
import { parseRequestsWithTools } from "../src/report/proxy-metrics-reader.ts"
import type { ReportData } from "../src/report/report-data.ts"
import { parseSince } from "../src/report-command.ts"
import { closedPort, testIo } from "./support.ts"

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tool-rescue-report-"))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A record as the proxy writes it now (the agreed shape). */
const current = (over: Record<string, unknown> = {}) => ({
  time: "2026-11-30T10:15:00.000Z",
  model: "qwen3-coder-30b",
  protocol: "chat",
  route: "/v1/chat/completions",
  format: "qwen3-coder",
  tools: ["read_file", "bash"],
  outcome: "retried",
  rounds: 1,
  round: 0,
  text: "<function=read_file>…",
  reasoning: "",
  markup: [{ format: "qwen3-coder", toolName: "read_file" }],
  ...over,
})

/** A record of the first failed-log generation. */
const old = {
  time: "2026-11-29T08:00:00.000Z",
  round: 0,
  text: "x",
  reasoning: "",
  markup: [{ format: "hermes", toolName: "bash" }],
}

async function log(name: string, lines: readonly (string | object)[]): Promise<string> {
  const path = join(dir, name)
  await writeFile(
    path,
    `${lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n")}\n`,
  )
  return path
}

async function report(args: string[]) {
  const io = testIo({ cwd: dir })
  const code = await main(["report", ...args], io)
  return { code, stdout: io.stdout.text(), stderr: io.stderr.text() }
}

const LOG = [
  current(),
  current({ time: "2026-11-30T10:20:00.000Z", outcome: "repeated", rounds: 2, round: 1 }),
  current({
    time: "2026-11-30T14:00:00.000Z",
    format: "hermes",
    markup: [{ format: "hermes", toolName: "bash" }],
  }),
  current({
    model: "glm-4.6",
    format: "glm",
    outcome: "not-offered",
    markup: [{ format: "glm", toolName: "rm" }],
  }),
  old,
]

describe("tool-rescue report", () => {
  it("prints the tables, and malformed lines with file and number", async () => {
    const a = await log("a.jsonl", LOG)
    await log("b.jsonl", [current(), "{oops", "", '{"text": 1}'])
    const run = await report([a, "b.jsonl"])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("6 leaks in 2 files")
    expect(run.stdout).toMatch(/qwen3-coder-30b\s+4\s+3\s+2\s+66\.7%/)
    expect(run.stdout).toMatch(/glm-4\.6\s+glm\s+not-offered\s+1/)
    expect(run.stdout).toMatch(/unknown\s+hermes\s+unknown\s+1/)
    expect(run.stdout).toContain("b.jsonl:2  invalid JSON")
    expect(run.stdout).toContain(`b.jsonl:4  no "text" (not a failed-log record)`)
    expect(run.stdout).toContain("recovery: 2 of 3 retries recovered (66.7%); 1 leaked again")
    // The first-generation record is counted, and the report says what it lacked.
    expect(run.stdout).toContain(
      "1 record from an older or partial log, counted with model, outcome, protocol, route, tools unknown",
    )
  })

  it("--json counts per model, format, tool and outcome", async () => {
    const run = await report([await log("a.jsonl", LOG), "--json"])
    const data = JSON.parse(run.stdout) as ReportData
    expect(data.records).toBe(5)
    expect(data.models.map((model) => [model.model, model.records])).toEqual([
      ["qwen3-coder-30b", 3],
      ["glm-4.6", 1],
      ["unknown", 1],
    ])
    expect(data.formats).toEqual([
      { name: "hermes", records: 2 },
      { name: "qwen3-coder", records: 2 },
      { name: "glm", records: 1 },
    ])
    expect(data.tools[0]).toEqual({ name: "bash", records: 2 })
    expect(data.recovery).toEqual({ retries: 2, failedRetries: 1, recovered: 1, rate: 0.5 })
    // Hour buckets over the 31 hours from 08:00 on the 29th to 14:00 on the 30th.
    expect(data.timeline).toMatchObject({ start: "2026-11-29T08:00:00.000Z", bucketHours: 1, buckets: 31 })
  })

  it("counts an empty model, format or tool name as unknown, not as a row of its own", async () => {
    const empty = current({ model: "", format: "", markup: [{ format: "", toolName: "" }] })
    const data = JSON.parse((await report([await log("a.jsonl", [empty]), "--json"])).stdout) as ReportData
    const only = [{ name: "unknown", records: 1 }]
    expect(data.models.map((model) => model.model)).toEqual(["unknown"])
    expect({ formats: data.formats, tools: data.tools }).toEqual({ formats: only, tools: only })
    expect(data.rows).toEqual([{ model: "unknown", format: "unknown", outcome: "retried", records: 1 }])
    // An empty format falls back to its markup's, as an absent one does.
    const named = current({ format: "", markup: [{ format: "hermes", toolName: "bash" }] })
    const second = JSON.parse((await report([await log("b.jsonl", [named]), "--json"])).stdout) as ReportData
    expect(second.formats).toEqual([{ name: "hermes", records: 1 }])
  })

  it("counts a newer log's outcome under its own name, and an empty one as unknown, not as malformed lines", async () => {
    const lines = [current({ outcome: "cancelled", protocol: "realtime" }), current({ outcome: "" })]
    const data = JSON.parse((await report([await log("a.jsonl", lines), "--json"])).stdout) as ReportData
    expect(data.records).toBe(2)
    expect(data.outcomes).toEqual([
      { name: "cancelled", records: 1 },
      { name: "unknown", records: 1 },
    ])
  })

  it("--since leaves out earlier and undated records", async () => {
    const path = await log("a.jsonl", [...LOG, { ...old, time: undefined }])
    const data = JSON.parse((await report([path, "--since", "2026-11-30", "--json"])).stdout) as ReportData
    expect(data.records).toBe(4)
    expect(data.excluded).toBe(2)
    expect(parseSince("24h", Date.parse("2026-05-02T00:00:00Z"))).toBe(Date.parse("2026-05-01T00:00:00Z"))
    const bad = await report([path, "--since", "last week"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--since must be an ISO 8601 date or a span")
  })

  it("--markdown prints tables to paste into an issue", async () => {
    const run = await report([await log("a.jsonl", LOG), "--markdown"])
    expect(run.stdout).toContain("## Tool calls leaked as text (tool-rescue report)")
    expect(run.stdout).toContain("| model | format | outcome | leaks |\n| --- | --- | --- | ---: |")
    expect(run.stdout).toContain("| qwen3-coder-30b | qwen3-coder | retried | 1 |")
  })

  it("shows its progress on a terminal and erases it", async () => {
    const io = testIo({ cwd: dir, tty: true })
    expect(await main(["report", await log("a.jsonl", LOG), "--json"], io)).toBe(0)
    const frames = io.stderr
      .text()
      .split("\r\u001b[2K")
      .filter((frame) => frame.length > 0)
    expect(frames[0]).toMatch(/^reading .*a\.jsonl · 1 line · [\d.]+ k?B · 0 leaks$/)
    expect(io.stderr.text().endsWith("\r\u001b[2K")).toBe(true)
  })

  it("refuses a missing file and two output formats", async () => {
    expect((await report(["nope.jsonl"])).stderr).toContain("cannot read nope.jsonl: no such file")
    expect((await report([])).code).toBe(2)
    expect((await report(["a", "--json", "--markdown"])).stderr).toContain("choose one")
  })
})

describe("report --metrics", () => {
  let server: Server | undefined
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
    server = undefined
  })

  async function serve(body: string): Promise<string> {
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain; version=0.0.4" })
      response.end(body)
    })
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`
  }

  it("computes leak rates from requests with tools per model", async () => {
    const url = await serve(
      [
        "# HELP tool_rescue_proxy_requests_total Requests",
        "# TYPE tool_rescue_proxy_requests_total counter",
        'tool_rescue_proxy_requests_total{protocol="chat",mode="recovered",model="qwen3-coder-30b"} 10',
        'tool_rescue_proxy_requests_total{protocol="responses",mode="recovered",model="qwen3-coder-30b"} 2',
        'tool_rescue_proxy_requests_total{protocol="chat",mode="passthrough",model="qwen3-coder-30b"} 50',
        'tool_rescue_proxy_leaks_total{protocol="chat",format="glm",outcome="retried",model="glm-4.6"} 1',
      ].join("\n"),
    )
    const data = JSON.parse(
      (await report([await log("a.jsonl", LOG), "--metrics", url, "--json"])).stdout,
    ) as ReportData
    expect(data.metrics).toEqual({ url, error: null })
    const qwen = data.models.find((model) => model.model === "qwen3-coder-30b")
    expect(qwen).toMatchObject({ requestsWithTools: 12, leakRate: 3 / 12 })
    expect(data.models.find((model) => model.model === "glm-4.6")).toMatchObject({
      requestsWithTools: null,
      leakRate: null,
    })
  })

  it("goes on without rates when the series is missing or the proxy is down", async () => {
    const url = await serve('tool_rescue_proxy_requests_total{protocol="chat",mode="recovered"} 4\n')
    const path = await log("a.jsonl", LOG)
    const run = await report([path, "--metrics", url])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("no leak rates: no requests-with-tools series with a model label")
    const closed = await closedPort()
    const down = await report([path, "--metrics", `http://127.0.0.1:${closed}/metrics`, "--json"])
    expect(down.code).toBe(0)
    expect((JSON.parse(down.stdout) as ReportData).metrics?.error).toBe(
      `connection refused: nothing is listening at http://127.0.0.1:${closed}/metrics (is the server running, on that port?)`,
    )
    expect(parseRequestsWithTools('x_tool_requests_total{model="a\\"b"} 3\ngarbage line\n').get('a"b')).toBe(
      3,
    )
  })
})

describe("report --html", () => {
  async function page(): Promise<{ html: string; json: ReportData }> {
    const path = await log("a.jsonl", [...LOG, current({ model: "<script>alert(1)</script>" })])
    const run = await report([path, "--html", "report.html", "--json"])
    expect(run.stderr).toBe("wrote report.html\n")
    return {
      html: await readFile(join(dir, "report.html"), "utf8"),
      json: JSON.parse(run.stdout) as ReportData,
    }
  }

  it("carries the same data as --json, and its charts add up to it", async () => {
    const { html, json } = await page()
    const embedded = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html)?.[1]
    expect(JSON.parse(embedded!)).toEqual(json)
    for (const model of json.models) {
      const section = html.slice(
        html.indexOf(`<section class="model" data-model="${escapeHtml(model.model)}">`),
      )
      const body = section.slice(0, section.indexOf("</section>"))
      const bars = [
        ...body.matchAll(
          /<rect class="bar"[^>]*data-format="([^"]*)" data-bucket="(\d+)" data-count="(\d+)"/g,
        ),
      ]
      const timed = json.timeline.series.filter((series) => series.model === model.model)
      expect(bars.reduce((sum, bar) => sum + Number(bar[3]), 0)).toBe(
        timed.reduce((sum, series) => sum + series.counts.reduce((a, b) => a + b, 0), 0),
      )
      for (const bar of bars) {
        const series = timed.find((entry) => escapeHtml(entry.format) === bar[1])
        expect(series?.counts[Number(bar[2])]).toBe(Number(bar[3]))
      }
      const outcomes = [
        ...body.matchAll(/<rect class="outcome"[^>]*data-outcome="([^"]*)" data-count="(\d+)"/g),
      ]
      expect(outcomes.map((bar) => ({ name: bar[1], records: Number(bar[2]) }))).toEqual(
        model.outcomes.map((outcome) => ({ ...outcome, name: escapeHtml(outcome.name) })),
      )
    }
  })

  it("loads nothing from the network and runs no script", async () => {
    const { html } = await page()
    expect(html).not.toMatch(
      /\b(src|href|xlink:href|action|srcset|poster|data)\s*=\s*["']?\s*(https?:)?\/\//i,
    )
    expect(html).not.toMatch(/<(link|img|iframe|object|embed|base|audio|video)\b/i)
    expect(html).not.toMatch(/@import|url\(/i)
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((tag) => tag[0])).toEqual([
      '<script type="application/json" id="report-data">',
    ])
    // Model names are text, never markup.
    expect(html).not.toContain("<script>alert(1)</script>")
  })
})

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
}
