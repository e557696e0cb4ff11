import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { suggestToolNames } from "../src/adapter.ts"
import { unknownToolMessage } from "../src/unknown-tool-calls.ts"

describe("suggestToolNames", () => {
  const offered = ["bash", "read_file", "write_file", "Glob", "list_directory"]

  test("case and separators do not count", () => {
    expect(suggestToolNames("readFile", offered)[0]).toBe("read_file")
    expect(suggestToolNames("Read-File", offered)[0]).toBe("read_file")
    expect(suggestToolNames("glob", offered)).toEqual(["Glob"])
    expect(suggestToolNames("list directory", offered)).toEqual(["list_directory"])
  })

  test("typos and transpositions, closest first", () => {
    expect(suggestToolNames("raed_file", offered)[0]).toBe("read_file")
    expect(suggestToolNames("read_files", offered)[0]).toBe("read_file")
    expect(suggestToolNames("wrte_file", offered)).toEqual(["write_file"])
    expect(suggestToolNames("bsh", offered)).toEqual(["bash"])
  })

  test("names that are not near are not suggested", () => {
    expect(suggestToolNames("rm", offered)).toEqual([])
    expect(suggestToolNames("delete_everything", offered)).toEqual([])
    expect(suggestToolNames("", offered)).toEqual([])
    expect(suggestToolNames("read_file", [])).toEqual([])
  })

  test("limit and ties in offered order", () => {
    expect(suggestToolNames("ab", ["ac", "ad", "ae", "af"])).toEqual(["ac", "ad", "ae"])
    expect(suggestToolNames("ab", ["ac", "ad", "ae", "af"], 1)).toEqual(["ac"])
    expect(suggestToolNames("ab", ["ac"], 0)).toEqual([])
  })

  test.prop([
    fc.string({ maxLength: 40 }),
    fc.uniqueArray(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 8 }),
    fc.nat({ max: 5 }),
  ])(
    "every suggestion is offered, once, at most `limit`; an offered name always has one",
    (name, tools, limit) => {
      const near = suggestToolNames(name, tools, limit)
      expect(near.length).toBeLessThanOrEqual(limit)
      for (const n of near) expect(tools).toContain(n)
      expect(new Set(near).size).toBe(near.length)
      if (tools.includes(name) && limit > 0) expect(suggestToolNames(name, tools, limit)[0]).toBeDefined()
    },
  )

  test("a megabyte name costs no more than its clipped prefix", () => {
    const huge = "read_file".padEnd(1_000_000, "x")
    expect(suggestToolNames(huge, offered)).toEqual([])
  })
})

describe("unknownToolMessage", () => {
  test("names the near misses before the offered list", () => {
    expect(unknownToolMessage("readFile", ["bash", "read_file"])).toBe(
      'Unknown tool "readFile": no such tool is available, so nothing was run. Did you mean "read_file"? Available tools: bash, read_file.',
    )
    expect(unknownToolMessage("rm", ["read_file"])).toBe(
      'Unknown tool "rm": no such tool is available, so nothing was run. Available tools: read_file.',
    )
  })
})
