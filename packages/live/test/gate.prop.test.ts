import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { isAbsolute, join, relative, resolve, sep } from "node:path"
import { fc, it } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { createFileTools, insideWorkspace } from "../src/live-workspace.ts"

const segment = fc.constantFrom("a", "b.md", "..", ".", "", "sub", "/", "/etc", "~")
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("/"))

describe("the workspace policy", () => {
  it.prop([path])("approves exactly the relative paths that land strictly inside the workspace", (p) => {
    const dir = "/tmp/ws"
    const inside = relative(dir, resolve(dir, p))
    const expected = !isAbsolute(p) && inside !== "" && inside !== ".." && !inside.startsWith(`..${sep}`)
    const decision = insideWorkspace(dir)({ path: p, content: "" })
    expect(decision.approved).toBe(expected)
  })

  it("a denied write does not run and the model gets the denial; an approved one runs", async () => {
    const root = await mkdtemp(join(tmpdir(), "tool-rescue-live-gate-"))
    try {
      const dir = join(root, "ws")
      const tools = createFileTools(dir, insideWorkspace(dir))
      expect(await tools.run("write_file", { path: "../escape.txt", content: "x" })).toMatch(/^denied: /)
      expect(await tools.run("write_file", { path: join(root, "abs.txt"), content: "x" })).toMatch(
        /^denied: /,
      )
      expect(await tools.run("write_file", { path: "notes/a.md", content: "hi" })).toBe(
        "wrote 2 characters to notes/a.md",
      )
      expect(await readdir(root)).toEqual(["ws"])
      expect(await tools.run("read_file", { path: "notes/a.md" })).toBe("hi")
      expect(tools.denied.map((write) => write.path)).toEqual(["../escape.txt", join(root, "abs.txt")])
      expect(tools.runs.map((run) => run.outcome)).toEqual(["denied", "denied", "ok", "ok"])
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
