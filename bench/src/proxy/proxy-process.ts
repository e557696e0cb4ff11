/**
 * The proxy as users run it: its own Node process (`startProxyServer`, the `tool-rescue serve`
 * entry), started by `proxy.bench.ts` with `--expose-gc`; answers over IPC (`child-ipc.ts`).
 * A second argument, a module's URL, runs that module's `startProxyServer` instead (an older
 * commit's proxy, built by `buildFromGit`).
 */
import type { startProxyServer as Start } from "@tool-rescue/proxy/node"
import { serveBenchIpc } from "./child-ipc.ts"

const [upstream, module = "@tool-rescue/proxy/node"] = process.argv.slice(2)
if (upstream === undefined) throw new Error("bench: run me with fork(file, [upstream])")
const { startProxyServer } = (await import(module)) as { readonly startProxyServer: typeof Start }
const server = await startProxyServer({ upstream, port: 0 })
serveBenchIpc(server.url, () => server.close())
