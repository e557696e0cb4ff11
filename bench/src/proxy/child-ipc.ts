import { constants, type NodeGCPerformanceDetail, PerformanceObserver } from "node:perf_hooks"

/**
 * The IPC answers of the bench's server processes (`proxy-process.ts`, `floor-process.ts`,
 * `sse-upstream-process.ts`), started by `proxy.bench.ts` (the first two with `--expose-gc`):
 * `{ type: "heap" }` → the heap after a full GC; `{ type: "cost" }` → the process's CPU time so
 * far (µs, user + system) and its young-generation GCs so far; `{ type: "snapshot" }` → a heap
 * snapshot's file; `{ type: "close" }` → `close()`, then exit.
 * Sends `{ type: "ready", url }` at once.
 */
export function serveBenchIpc(url: string, close: () => Promise<void>): void {
  if (process.send === undefined) throw new Error("bench: run me with fork(file)")
  const gc = (globalThis as { gc?: () => void }).gc
  let youngGcs = 0
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (
        (entry as { detail?: NodeGCPerformanceDetail }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR
      )
        youngGcs++
  }).observe({ entryTypes: ["gc"] })
  process.on("message", async (message: { type: string }) => {
    if (message.type === "cost") {
      const { user, system } = process.cpuUsage()
      process.send?.({ type: "cost", cpu: user + system, youngGcs })
    } else if (message.type === "heap") {
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
