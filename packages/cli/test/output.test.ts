import { describe, expect, it } from "vitest"
import { createProgressLine, progressBar } from "../src/progress.ts"
import { colorEnabled, createStyle, visibleWidth } from "../src/style.ts"
import { formatTable } from "../src/table.ts"
import { excerpt, formatBytes, formatCount, formatMs, formatPercent, oneLine, plural } from "../src/text.ts"
import { captured } from "./support.ts"

describe("colour", () => {
  it("is on for a TTY and off otherwise", () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true)
    expect(colorEnabled({ isTTY: false }, {})).toBe(false)
    expect(colorEnabled({}, {})).toBe(false)
  })

  it("honours NO_COLOR, TERM=dumb and FORCE_COLOR (which wins, as in Node)", () => {
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: "1" })).toBe(false)
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: "" })).toBe(true)
    expect(colorEnabled({ isTTY: true }, { TERM: "dumb" })).toBe(false)
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true)
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: "" })).toBe(true)
    expect(colorEnabled({ isTTY: true }, { FORCE_COLOR: "0" })).toBe(false)
    expect(colorEnabled({ isTTY: true }, { FORCE_COLOR: "false" })).toBe(false)
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: "1", NO_COLOR: "1" })).toBe(true)
  })

  it("paints only when enabled", () => {
    expect(createStyle({ isTTY: false }, {}).red("x")).toBe("x")
    const style = createStyle({ isTTY: true }, {})
    expect(style.red("x")).toBe("\u001b[31mx\u001b[39m")
    expect(visibleWidth(style.bold(style.green("ok")))).toBe(2)
  })

  it("counts wide characters as two columns", () => {
    expect(visibleWidth("北京")).toBe(4)
    expect(visibleWidth("abc")).toBe(3)
  })
})

describe("formatTable", () => {
  it("aligns columns, right-aligns numbers and ignores colour codes in widths", () => {
    const style = createStyle({ isTTY: true }, {})
    const table = formatTable(
      [{ header: "format" }, { header: "leaks", align: "right" }, { header: "tool" }],
      [
        ["qwen3-coder", style.red("12"), "read_file"],
        ["hermes", "3", "bash"],
      ],
    )
    const plain = table.replace(/\u001b\[[0-9;]*m/g, "")
    expect(plain).toBe(
      [
        "  format       leaks  tool",
        "  ───────────  ─────  ─────────",
        "  qwen3-coder     12  read_file",
        "  hermes           3  bash",
        "",
      ].join("\n"),
    )
  })
})

describe("text helpers", () => {
  it("makes model text one terminal-safe line", () => {
    expect(excerpt("<function=read_file>\n<parameter=path>", 24)).toBe("<function=read_file>⏎<pa…")
    expect(excerpt("a\r\nb\rc\td")).toBe("a⏎b⏎c d")
    // ESC and other controls can never reach the terminal.
    expect(excerpt("\u001b[2Jboom\u0007\u009b")).toBe("\\x1b[2Jboom\\x07\\x9b")
    expect(excerpt("x\ud800y\udc00")).toBe("x\\ud800y\\udc00")
    expect(excerpt("😀😀😀", 2)).toBe("😀😀…")
    expect(oneLine("  bad\nthing  ")).toBe("bad⏎thing")
  })

  it("formats counts, bytes, durations and percentages", () => {
    expect(formatCount(1234567)).toBe("1,234,567")
    expect(plural(1, "adapter")).toBe("1 adapter")
    expect(plural(0, "line")).toBe("0 lines")
    expect(plural(1500, "line")).toBe("1,500 lines")
    expect(plural(2, "entry", "entries")).toBe("2 entries")
    expect(formatBytes(999)).toBe("999 B")
    expect(formatBytes(2_500_000)).toBe("2.5 MB")
    expect(formatMs(850.4)).toBe("850 ms")
    expect(formatMs(1240)).toBe("1.24 s")
    expect(formatMs(Number.NaN)).toBe("–")
    expect(formatPercent(1, 3)).toBe("33.3%")
    expect(formatPercent(0, 0)).toBe("–")
  })
})

describe("progress", () => {
  it("draws in place on a TTY and erases itself", () => {
    const tty = captured(true)
    const progress = createProgressLine(tty, true, 0)
    progress.update("scanning 1")
    progress.update("scanning 2")
    progress.clear()
    expect(tty.text()).toBe("\r\u001b[2Kscanning 1\r\u001b[2Kscanning 2\r\u001b[2K")
  })

  it("writes nothing when the stream is not a TTY", () => {
    const pipe = captured(false)
    const progress = createProgressLine(pipe, true, 0)
    progress.update("scanning")
    progress.clear()
    expect(pipe.text()).toBe("")
  })

  it("throttles redraws unless forced", () => {
    const tty = captured(true)
    const progress = createProgressLine(tty, true, 60_000)
    progress.update("a")
    progress.update("b")
    progress.update("c", true)
    expect(tty.text()).toBe("\r\u001b[2Ka\r\u001b[2Kc")
  })

  it("renders a bar", () => {
    expect(progressBar(3, 4, 8)).toBe("[██████░░] 3/4")
    expect(progressBar(0, 0, 4)).toBe("[████] 0/0")
  })
})
