/**
 * `pnpm e2e:browser` — opt-in, not part of `pnpm check`.
 *
 * Opens the page of `tool-rescue report --html` in a real browser and checks that what it draws is
 * what `--json` says. Installs what it needs: Debian's `chromium` through `apt-get` when no
 * Chromium is on the PATH (or `CHROMIUM` names one), and `playwright-core` (pinned below) from the
 * npm registry into a scratch prefix, so the repository's lockfile stays as it is.
 *
 * The page is opened with JavaScript off (it must read without it) and every request but the page
 * itself refused and counted (it must load nothing). Checks, per model: the timeline chart and the
 * outcome chart are drawn (non-empty boxes); each bar's count is the JSON's count for its format
 * and time bucket, and the counts add up to the model's; bar heights (and outcome widths) are
 * proportional to their counts; the figures printed beside the charts are the JSON's.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { main } from "../src/main.ts"
import type { ReportData } from "../src/report/report-data.ts"

const PLAYWRIGHT_CORE = "playwright-core@1.65.1"

// The little of playwright-core's API used here (it is installed at run time, not a dependency).
/** An element as seen inside the page (no DOM types in this package). */
interface PageElement {
  getAttribute(name: string): string | null
  getBoundingClientRect(): { readonly width: number; readonly height: number }
}
interface Locator {
  locator(selector: string): Locator
  boundingBox(): Promise<{ width: number; height: number } | null>
  evaluateAll<R>(fn: (elements: PageElement[]) => R): Promise<R>
  textContent(): Promise<string | null>
}
interface Page {
  goto(url: string): Promise<unknown>
  locator(selector: string): Locator
  screenshot(options: { path: string; fullPage: boolean }): Promise<unknown>
}
interface Route {
  request(): { url(): string }
  continue(): Promise<void>
  abort(): Promise<void>
}
interface BrowserContext {
  route(pattern: string, handler: (route: Route) => Promise<void>): Promise<void>
  newPage(): Promise<Page>
}
interface Browser {
  newContext(options: {
    javaScriptEnabled: boolean
    viewport: { width: number; height: number }
  }): Promise<BrowserContext>
  version(): string
  close(): Promise<void>
}
interface PlaywrightCore {
  readonly chromium: { launch(options: { executablePath: string; args: string[] }): Promise<Browser> }
}

function which(command: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined
  } catch {
    return undefined
  }
}

/** A Chromium to drive: `$CHROMIUM`, one on the PATH, or Debian's package installed now. */
function chromium(): string {
  const named = process.env.CHROMIUM
  if (named !== undefined && existsSync(named)) return named
  const found = which("chromium") ?? which("chromium-browser")
  if (found !== undefined) return found
  console.error("e2e: installing Debian's chromium (apt-get) …")
  const root = process.getuid?.() === 0
  const sudo = (args: string[]) => (root ? args : ["sudo", ...args])
  const [command, ...args] = sudo(["apt-get", "install", "-y", "--no-install-recommends", "chromium"])
  execFileSync(command!, args, { stdio: "inherit" })
  const installed = which("chromium")
  if (installed === undefined) throw new Error("apt-get installed chromium, yet it is not on the PATH")
  return installed
}

/** `playwright-core`, installed into a scratch prefix. */
async function playwright(prefix: string): Promise<PlaywrightCore> {
  console.error(`e2e: installing ${PLAYWRIGHT_CORE} into ${prefix} …`)
  execFileSync(
    "npm",
    ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", PLAYWRIGHT_CORE],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  )
  return (await import(
    pathToFileURL(join(prefix, "node_modules/playwright-core/index.mjs")).href
  )) as PlaywrightCore
}

/** A failed log of three models over four days: formats, outcomes and tools vary with the line. */
function failedLog(): string {
  const models = ["qwen3-coder-30b", "glm-4.6", "llama-3.3-70b"]
  const formats = [["qwen3-coder", "hermes"], ["glm"], ["llama3-json", "pythonic", "hermes"]]
  const outcomes = ["retried", "retried", "repeated", "not-offered", "truncated"]
  const start = Date.parse("2026-11-27T00:00:00Z")
  const lines: string[] = []
  // A fixed pseudo-random sequence (Park–Miller), so every run draws the same page.
  let seed = 20_261_127
  const pick = <T>(list: readonly T[]): T => {
    seed = (seed * 48_271) % 2_147_483_647
    return list[seed % list.length]!
  }
  for (let i = 0; i < 600; i++) {
    const m = pick([0, 0, 0, 1, 1, 2])
    const format = pick(formats[m]!)
    const outcome = pick(outcomes)
    lines.push(
      JSON.stringify({
        time: new Date(start + pick([...Array(96).keys()]) * 3_600_000 + (i % 60) * 60_000).toISOString(),
        model: models[m],
        protocol: "chat",
        route: "/v1/chat/completions",
        format,
        tools: ["read_file", "bash"],
        outcome,
        rounds: outcome === "repeated" ? 2 : 1,
        text: "…",
        markup: [{ format, toolName: pick(["bash", "read_file", "read_file", "search"]) }],
      }),
    )
  }
  // The first log generation, and a damaged line.
  lines.push(JSON.stringify({ time: "2026-11-28T12:00:00Z", round: 0, text: "…", reasoning: "", markup: [] }))
  lines.push("{ damaged")
  return `${lines.join("\n")}\n`
}

const failures: string[] = []
function check(ok: boolean, what: string): void {
  console.log(`${ok ? "✓" : "✗"} ${what}`)
  if (!ok) failures.push(what)
}

const dir = mkdtempSync(join(tmpdir(), "tool-rescue-browser-"))
writeFileSync(join(dir, "failed.jsonl"), failedLog())
const out: string[] = []
const io = {
  stdout: { write: (chunk: string) => out.push(chunk) },
  stderr: { write: () => true },
  stdin: process.stdin,
  env: {},
  cwd: dir,
}
const code = await main(["report", "failed.jsonl", "--html", "report.html", "--json"], io)
if (code !== 0) throw new Error(`tool-rescue report exited ${code}`)
const data = JSON.parse(out.join("")) as ReportData
const pagePath = join(dir, "report.html")

const executablePath = chromium()
const { chromium: driver } = await playwright(join(dir, "prefix"))
const browser = await driver.launch({ executablePath, args: ["--no-sandbox"] })
try {
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: 900, height: 900 },
  })
  const pageUrl = pathToFileURL(pagePath).href
  const refused: string[] = []
  await context.route("**/*", (route) => {
    const url = route.request().url()
    if (url === pageUrl) return route.continue()
    refused.push(url)
    return route.abort()
  })
  const page = await context.newPage()
  await page.goto(pageUrl)
  check(
    refused.length === 0,
    `the page asked for nothing but itself${refused.length === 0 ? "" : `: ${refused.join(", ")}`}`,
  )
  const browserVersion = browser.version()
  for (const model of data.models) {
    const section = page.locator(`section.model[data-model="${model.model}"]`)
    const timeline = section.locator("svg.timeline")
    const box = await timeline.boundingBox()
    check(box !== null && box.width > 100 && box.height > 50, `${model.model}: the timeline chart is drawn`)
    const bars = await timeline.locator("rect.bar").evaluateAll((rects) =>
      rects.map((rect) => {
        const r = rect.getBoundingClientRect()
        return {
          format: rect.getAttribute("data-format") ?? "",
          bucket: Number(rect.getAttribute("data-bucket")),
          count: Number(rect.getAttribute("data-count")),
          height: r.height,
          width: r.width,
        }
      }),
    )
    const series = data.timeline.series.filter((entry) => entry.model === model.model)
    const expected = series.reduce((sum, entry) => sum + entry.counts.reduce((a, b) => a + b, 0), 0)
    check(
      bars.reduce((sum, bar) => sum + bar.count, 0) === expected && expected === model.records,
      `${model.model}: the bars add up to ${expected} leaks, the JSON's ${model.records}`,
    )
    check(
      bars.every(
        (bar) => series.find((entry) => entry.format === bar.format)?.counts[bar.bucket] === bar.count,
      ),
      `${model.model}: each of ${bars.length} bars holds the JSON's count for its format and time bucket`,
    )
    const perLeak = bars.map((bar) => bar.height / bar.count)
    check(
      bars.every((bar) => bar.width > 0 && bar.height > 0) &&
        Math.max(...perLeak) - Math.min(...perLeak) < 0.05,
      `${model.model}: every bar is visible and its height is proportional to its count`,
    )
    const outcomes = await section.locator("svg.outcomes rect.outcome").evaluateAll((rects) =>
      rects.map((rect) => ({
        name: rect.getAttribute("data-outcome") ?? "",
        records: Number(rect.getAttribute("data-count")),
        width: rect.getBoundingClientRect().width,
      })),
    )
    check(
      JSON.stringify(outcomes.map(({ name, records }) => ({ name, records }))) ===
        JSON.stringify(model.outcomes),
      `${model.model}: the outcome chart shows the JSON's outcomes (${model.outcomes.map((o) => `${o.name} ${o.records}`).join(", ")})`,
    )
    const perOutcome = outcomes.map((outcome) => outcome.width / outcome.records)
    check(
      outcomes.every((outcome) => outcome.width > 0) &&
        Math.max(...perOutcome) - Math.min(...perOutcome) < 0.05,
      `${model.model}: outcome bars are proportional to their counts`,
    )
    const leaks = await section.locator("dt:text-is('leaks') + dd").textContent()
    check(leaks === model.records.toLocaleString("en-US"), `${model.model}: the page prints ${leaks} leaks`)
  }
  await page.screenshot({ path: join(dir, "report.png"), fullPage: true })
  console.log(`\nChromium ${browserVersion}, ${PLAYWRIGHT_CORE}; page and screenshot in ${dir}`)
} finally {
  await browser.close()
}
if (failures.length > 0) {
  console.error(`e2e:browser: ${failures.length} check(s) failed`)
  process.exitCode = 1
} else {
  console.log("e2e:browser: every check passed")
}
// Keep the page for a look; the scratch prefix is large.
if (existsSync(join(dir, "prefix"))) execFileSync("rm", ["-rf", join(dir, "prefix")])
