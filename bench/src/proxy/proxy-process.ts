/**
 * The proxy as users run it: its own Node process (`startProxyServer`, the `tool-rescue serve`
 * entry), started by `proxy.bench.ts` with `--expose-gc`. It answers over IPC:
 * `{ type: "heap" }` → the heap after a full GC; `{ type: "close" }` → closes and exits.
 */
import { startProxyServer } from "@tool-rescue/proxy/node"

const upstream = process.argv[2]
if (upstream === undefined || process.send === undefined)
  throw new Error("bench: run me with fork(file, [upstream])")
const server = await startProxyServer({ upstream, port: 0 })
const gc = (globalThis as { gc?: () => void }).gc

process.on("message", async (message: { type: string }) => {
  if (message.type === "heap") {
    gc?.()
    gc?.()
    const { heapUsed, arrayBuffers } = process.memoryUsage()
    process.send?.({ type: "heap", heapUsed, arrayBuffers })
  } else if (message.type === "snapshot") {
    const { writeHeapSnapshot } = await import("node:v8")
    process.send?.({ type: "snapshot", file: writeHeapSnapshot() })
  } else if (message.type === "close") {
    await server.close()
    process.exit(0)
  }
})
process.send({ type: "ready", url: server.url })
