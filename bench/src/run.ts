/**
 * Runs every registered benchmark suite, prints its Markdown report and writes it to
 * `bench/results/<name>.md`.
 *
 *   pnpm --filter @tool-rescue/bench bench            # every suite
 *   pnpm --filter @tool-rescue/bench bench detector   # only the named suites
 *
 * To add a suite: write `src/<name>.bench.ts` that calls `registerSuite(...)` and add one import
 * line below.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { registeredSuites } from "./suite.ts"

import "./detector.bench.ts"
import "./ai-sdk.bench.ts"
import "./recovery.bench.ts"
import "./announced.bench.ts"
import "./proxy.bench.ts"
import "./proxy-turn.bench.ts"
import "./effect.bench.ts"

const only = process.argv.slice(2)
const results = new URL("../results/", import.meta.url)
mkdirSync(results, { recursive: true })
for (const suite of registeredSuites()) {
  if (only.length > 0 && !only.includes(suite.name)) continue
  console.error(`bench: running ${suite.name} …`)
  const report = await suite.run()
  console.log(report)
  writeFileSync(new URL(`${suite.name}.md`, results), `${report.trimEnd()}\n`)
}
