/**
 * The floor of an idle stream's memory: what Node's HTTP hop costs at best — a bare node:http
 * server whose every request is one undici `request` upstream, its body piped to the response
 * (no router, no web streams, no parsing). Started by `proxy.bench.ts` like the proxy's process
 * and measured the same way; answers over IPC (`child-ipc.ts`).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Agent, request } from "undici"
import { serveBenchIpc } from "./child-ipc.ts"

const upstream = process.argv[2]
if (upstream === undefined) throw new Error("bench: run me with fork(file, [upstream])")
const dispatcher = new Agent({ keepAliveTimeout: 10_000 })
const server = createServer(async (incoming, outgoing) => {
  const parts: Buffer[] = []
  for await (const part of incoming) parts.push(part as Buffer)
  try {
    const answer = await request(`${upstream}${incoming.url?.replace(/^\/v1/, "") ?? ""}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.concat(parts),
      dispatcher,
    })
    answer.body.on("error", () => undefined)
    outgoing.once("close", () => answer.body.destroy())
    outgoing.writeHead(answer.statusCode, { "content-type": "text/event-stream" })
    outgoing.flushHeaders()
    answer.body.pipe(outgoing)
  } catch {
    outgoing.destroy()
  }
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const { port } = server.address() as AddressInfo
serveBenchIpc(`http://127.0.0.1:${port}/v1`, async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})
