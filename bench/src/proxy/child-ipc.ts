/**
 * The IPC answers of the bench's server processes (`proxy-process.ts`, `floor-process.ts`,
 * `sse-upstream-process.ts`), started by `proxy.bench.ts` (the first two with `--expose-gc`):
 * `{ type: "heap" }` → the heap after a full GC; `{ type: "snapshot" }` → a heap snapshot's
 * file; `{ type: "close" }` → `close()`, then exit.
 * Sends `{ type: "ready", url }` at once.
 */
export function serveBenchIpc(url: string, close: () => Promise<void>): void {
  if (process.send === undefined) throw new Error("bench: run me with fork(file)")
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
      await close()
      process.exit(0)
    }
  })
  process.send({ type: "ready", url })
}
