/**
 * The proxy as users run it: its own Node process (`startProxyServer`, the `tool-rescue serve`
 * entry), started by `proxy.bench.ts` with `--expose-gc`; answers over IPC (`child-ipc.ts`).
 */
import { startProxyServer } from "@tool-rescue/proxy/node"
import { serveBenchIpc } from "./child-ipc.ts"

const upstream = process.argv[2]
if (upstream === undefined) throw new Error("bench: run me with fork(file, [upstream])")
const server = await startProxyServer({ upstream, port: 0 })
serveBenchIpc(server.url, () => server.close())
