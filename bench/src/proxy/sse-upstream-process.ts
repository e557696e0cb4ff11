/**
 * The bench's upstream in a process of its own, as a model server is (so the direct path crosses
 * processes like the proxy's does, instead of sharing the client's event loop). Started by
 * `proxy.bench.ts` with `fork`; over IPC: `{ type: "written", id }` → the stream's write times;
 * `{ type: "close" }` → closes and exits.
 */
import { startSseUpstream } from "./sse-upstream.ts"

if (process.send === undefined) throw new Error("bench: run me with fork(file)")
const upstream = await startSseUpstream()

process.on("message", async (message: { type: string; id?: string }) => {
  if (message.type === "written") {
    const id = message.id ?? ""
    process.send?.({ type: "written", id, times: await upstream.writtenAt(id) })
  } else if (message.type === "close") {
    await upstream.close()
    process.exit(0)
  }
})
process.send({ type: "ready", url: upstream.url })
