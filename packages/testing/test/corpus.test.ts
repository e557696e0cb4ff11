import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { allFormats, type CorpusSample, corpus } from "../src/index.ts"

const jsonl = readFileSync(new URL("../corpus/issues.jsonl", import.meta.url), "utf8")
const rows = jsonl
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as CorpusSample)

describe("corpus", () => {
  it("is exactly corpus/issues.jsonl (run `pnpm generate:corpus` after editing it)", () => {
    expect(corpus).toEqual(rows)
  })

  it("has unique ids, known formats and consistent expectations", () => {
    expect(new Set(corpus.map((sample) => sample.id)).size).toBe(corpus.length)
    for (const sample of corpus) {
      expect([...allFormats, "other"]).toContain(sample.format)
      expect(sample.expect.leak).toBe(sample.expect.tools.length > 0)
      for (const tool of sample.expect.tools) expect(sample.tools).toContain(tool)
      expect(["core", "stretch"]).toContain(sample.scope)
    }
  })
})
