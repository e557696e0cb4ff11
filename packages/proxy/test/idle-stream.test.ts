/**
 * What an idle recovered stream keeps on the Node entry, counted (not timed): the objects that
 * made most of its memory — web streams, `Response`s, abort signals — per stream held open
 * mid-answer. `v8.queryObjects` counts live objects after a full GC. The client is node:http,
 * so the process's own web objects are the proxy's.
 */
import { type ClientRequest, request } from "node:http"
import { queryObjects } from "node:v8"
import { afterEach, describe, expect, it } from "vitest"
import { type Harness, READ_FILE_TOOL, startHarness } from "./support/harness.ts"

let harness: Harness | undefined
afterEach(async () => {
  await harness?.close()
  harness = undefined
})

const STREAMS = 20
const live = (kind: abstract new (...args: never[]) => unknown): number =>
  queryObjects(kind as never, { format: "count" }) as number
const count = () => ({
  streams: live(ReadableStream),
  responses: live(Response),
  signals: live(AbortSignal),
  functions: live(Function),
})

describe("an idle recovered stream on the Node entry", () => {
  it("holds no web stream or Response, at most two abort signals (the turn's and its attempt's), and no closure per step", async () => {
    harness = await startHarness(
      Array.from({ length: STREAMS }, () => ({
        content: "The parser keeps a small state machine per stream. ".repeat(2),
        chunkSize: 8,
        interrupt: { kind: "stall" as const, afterChunks: 2 },
      })),
    )
    const body = JSON.stringify({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "go" }],
      tools: [READ_FILE_TOOL],
    })
    const before = count()
    const url = `${harness.proxy.url}/chat/completions`
    const open = await Promise.all(
      Array.from(
        { length: STREAMS },
        () =>
          new Promise<ClientRequest>((resolve, reject) => {
            const sent = request(
              url,
              { method: "POST", headers: { "content-type": "application/json" } },
              (res) => res.once("data", () => resolve(sent)),
            )
            sent.once("error", reject)
            sent.end(body)
          }),
      ),
    )
    const after = count()
    for (const sent of open) sent.destroy()
    // A few objects of the process may come and go; one per stream may not.
    expect(after.streams - before.streams).toBeLessThan(STREAMS / 4)
    expect(after.responses - before.responses).toBeLessThan(STREAMS / 4)
    expect(after.signals - before.signals).toBeLessThanOrEqual(2 * STREAMS + STREAMS / 4)
    // Functions of the whole process per stream (the in-process client's and upstream's too):
    // about 105 on Node 20 and 24, 162 with a closure per step of the turn, the attempt scanner,
    // the SSE reader, the splice and the body writer (they are classes with shared methods now).
    expect((after.functions - before.functions) / STREAMS).toBeLessThan(125)
  })
})
