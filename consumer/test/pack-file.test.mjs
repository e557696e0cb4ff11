// Which tarball of `.work/packs` is a package's: its exact name and a version, never a package
// whose name only starts with it (`effect` is not `effect-openai-compat`).
import assert from "node:assert/strict"
import { test } from "node:test"
import { packFile } from "../src/pack-file.mjs"

const packs = [
  "/w/packs/tool-rescue-effect-openai-compat-0.1.0.tgz",
  "/w/packs/tool-rescue-effect-0.1.0.tgz",
  "/w/packs/tool-rescue-ai-sdk-1.2.3-next.0.tgz",
]

test("finds a package's own tarball, not one whose name starts with its name", () => {
  assert.equal(packFile(packs, "@tool-rescue/effect"), "/w/packs/tool-rescue-effect-0.1.0.tgz")
  assert.equal(
    packFile(packs, "@tool-rescue/effect-openai-compat"),
    "/w/packs/tool-rescue-effect-openai-compat-0.1.0.tgz",
  )
  assert.equal(packFile(packs, "@tool-rescue/ai-sdk"), "/w/packs/tool-rescue-ai-sdk-1.2.3-next.0.tgz")
})

test("says which package has no tarball", () => {
  assert.throws(() => packFile(packs, "@tool-rescue/openai"), /no tarball of @tool-rescue\/openai in/)
})
