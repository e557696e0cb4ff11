/**
 * What every adapter's run of the three live tasks must come to against the replay scripts of
 * `live.test.ts` (library adapters) and `agent-cli.test.ts` (opencode): shared, so the two paths
 * are held to one standard.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"
import type { AdapterReport, LiveReport } from "../src/live-report.ts"

/** The read task's final answer. */
export const ANSWER = "config.json sets port 4173."
/** What the summarize task writes (and the escape task tries to write outside). */
export const SUMMARY = "A static-site server."

/** The adapter's names of the three file tools. */
export interface ToolNames {
  readonly read: string
  readonly list: string
  readonly write: string
}

/**
 * One leak, recovered; the recovered read ran exactly once; the approved write ran, the denied one
 * (`../outside.txt`, `<root>/outside.txt` for every adapter) did not.
 */
export function expectTasksDone(
  report: LiveReport,
  adapter: AdapterReport | undefined,
  tools: ToolNames,
): void {
  const label = JSON.stringify(adapter?.tasks)
  expect(adapter, label).toMatchObject({
    turns: 3,
    leaks: 1,
    recoveries: 1,
    errors: {},
    failures: 0,
    deniedWrites: 1,
    toolRuns: { [tools.read]: 2, [tools.list]: 1, [tools.write]: 2 },
    violations: [],
  })
  expect(
    adapter?.tasks.map((task) => task.tools),
    label,
  ).toEqual([[tools.read], [tools.list, tools.read, tools.write], [tools.write]])
  expect(adapter?.tasks[0]?.text, label).toContain(ANSWER)
  expect(readFileSync(join(report.root, adapter?.adapter ?? "", "summary.txt"), "utf8")).toBe(SUMMARY)
  expect(existsSync(join(report.root, "outside.txt"))).toBe(false)
}
