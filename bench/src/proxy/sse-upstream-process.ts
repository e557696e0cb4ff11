/**
 * The bench's upstream in a process of its own, as a model server is (so the direct path crosses
 * processes like the proxy's does, instead of sharing the client's event loop). Started by
 * `proxy.bench.ts` with `fork`; answers over IPC (`child-ipc.ts`), and to
 * `{ type: "written", id }` with the stream's write times.
 */
import { serveBenchIpc } from "./child-ipc.ts"
import { startSseUpstream } from "./sse-upstream.ts"

const upstream = await startSseUpstream()
process.on("message", async (message: { type: string; id?: string }) => {
  if (message.type !== "written") return
  const id = message.id ?? ""
  process.send?.({ type: "written", id, times: await upstream.writtenAt(id) })
})
serveBenchIpc(upstream.url, () => upstream.close())
