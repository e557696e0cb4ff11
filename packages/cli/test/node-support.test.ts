import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { MIN_NODE, unsupportedNode } from "../src/node-support.ts"

describe("the Node versions the CLI runs on", () => {
  it("names the oldest one it supports, on one line, for an older Node", () => {
    expect(unsupportedNode("20.20.2")).toBe("tool-rescue needs Node 22.12 or later; this is Node 20.20.2.")
    expect(unsupportedNode("22.11.0")).toBe("tool-rescue needs Node 22.12 or later; this is Node 22.11.0.")
    expect(unsupportedNode("22.12.0")).toBeUndefined()
    expect(unsupportedNode("24.21.0")).toBeUndefined()
  })

  it("checks the package's own engines, which its dependencies' engines bound", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      engines: { node: string }
    }
    expect(pkg.engines.node).toBe(`>=${MIN_NODE.join(".")}`)
  })
})
