/**
 * Granite's bare Python call lines (`get_weather(location="Paris")` as the answer, vLLM
 * `granite_pythonic`): a call only when it is its whole line and names an offered tool. Prose that
 * starts with or names a call is shown whole, and code is content.
 */
import { describe, expect, test } from "vitest"
import { scan } from "../src/index.ts"
import { chars, feed, reassemble } from "./helpers.ts"

const tools = ["read_file", "list_files", "get_weather", "get_time"]
const label = (r: ReturnType<typeof scan>) => r.markup.map((m) => `${m.format}:${m.toolName ?? "?"}`)

/** Scanned whole and one code unit at a time, the same; nothing lost. */
function both(text: string, options: { tools?: readonly string[]; maxHoldChars?: number } = { tools }) {
  const whole = scan(text, options)
  expect(reassemble(text, whole)).toBe(text)
  expect(feed(chars(text), options)).toMatchObject({ text: whole.text, markup: whole.markup })
  return whole
}

describe("prose that writes a call is shown, nothing withheld", () => {
  test.each([
    ["the call, then what it does", "list_files() is the function that lists the files."],
    ["a call mid-sentence", "Call read_file(path) to read it."],
    ["an offered name starting a line, then prose", "read_file(path) reads a file.\nlist_files lists them."],
    ["on a later line, then prose", 'To look:\nget_weather(city="Paris") tells the weather.'],
    ["a comma, then no call", 'get_weather(city="Paris"), then get_time.'],
    ["two calls, then prose", 'get_weather(city="Paris"), get_time(tz="CET") is what I would call.'],
    ["a tool not offered", "print(x)"],
    ["a tool not offered, on a later line", "Try this:\nprint(x)"],
    ["a call not closed on its line", 'read_file(\n  path="a.txt")'],
    ["a bracket closing the wrong depth", "read_file(path=[1)] is a typo."],
  ])("%s", (_, text) => {
    expect(both(text)).toMatchObject({ text, markup: [] })
  })

  test("with no tools offered, a bare call is never flagged", () => {
    const text = 'get_weather(location="Paris")'
    expect(both(text, {})).toMatchObject({ text, markup: [] })
  })

  test("a call longer than the hold cap is shown whole (decided at the cap, nothing lost)", () => {
    const text = `read_file(path="${"a".repeat(200)}")`
    expect(both(text, { tools, maxHoldChars: 64 })).toMatchObject({ text, markup: [] })
  })
})

describe("a bare call that is its line", () => {
  test.each([
    [
      "strings with brackets, quotes and escapes",
      `read_file(path="a\\")b(", mode='r)', opts={"x": [1, (2)]})`,
    ],
    ["trailing blanks", "list_files()  \t"],
    ["CR LF after it", "list_files()\r\nDone."],
  ])("%s", (_, text) => {
    const r = both(text)
    expect(label(r)).toHaveLength(1)
    expect(r.markup[0]).toMatchObject({ offered: true, structured: true, complete: true, start: 0 })
  })

  test("a `]` right after it joins it (the list's `[` was dropped)", () => {
    const text = 'get_weather(city="Paris")]\nDone.'
    const r = both(text)
    expect(label(r)).toEqual(["granite:get_weather"])
    expect(r.text).toBe("\nDone.")
  })

  test("two calls on a line, a comma between", () => {
    const r = both('get_weather(city="Paris"), get_time(tz="CET")\nOK')
    expect(label(r)).toEqual(["granite:get_weather", "granite:get_time"])
    expect(r.text).toBe("\nOK")
  })

  test("cut off by the end of the stream inside its arguments: a truncated call", () => {
    const r = both('get_weather(location="Par')
    expect(label(r)).toEqual(["granite:get_weather"])
    expect(r.markup[0]).toMatchObject({ complete: false })
  })
})

describe("inside a reasoning block, a bare call line is reasoning, shown", () => {
  test.each([
    ["a line of its own", '<think>\nThe weather:\nget_weather(city="Paris")\n</think>\nIt is sunny.'],
    ["a list item", '<think>\nPlan:\n- get_weather(city="Paris")\n</think>\nIt is sunny.'],
  ])("%s", (_, text) => {
    expect(both(text)).toMatchObject({ text, markup: [] })
  })

  test("the answer after it may be one", () => {
    const r = both('<think>\nCheck the weather.\n</think>\nget_weather(city="Paris")')
    expect(label(r)).toEqual(["granite:get_weather"])
  })
})

describe("code is content", () => {
  test.each([
    ["fenced", '```python\nget_weather(location="Paris")\n```'],
    ["indented", 'Run:\n\n    get_weather(location="Paris")\n\nDone.'],
    ["inline", 'Run `get_weather(location="Paris")` now.'],
  ])("%s", (_, text) => {
    expect(both(text)).toMatchObject({ text, markup: [] })
  })
})
