/**
 * The proxy's process of the `proxy-turn` suite with the class-based turn of commit 6efbb86:
 * `@tool-rescue/recovery` resolves to `class-turn.ts` (today's package but for `runTurn`) for
 * every module of the process but that shim itself; then the same `proxy-process.ts` starts.
 * Bare imports of the 6efbb86 bundle (`@tool-rescue/detector`, `@opentelemetry/api`) resolve as
 * from the recovery package, so both turns run over the same detector.
 */
import { registerHooks } from "node:module"

const shim = new URL("./class-turn.ts", import.meta.url).href
const bundle = process.env.TOOL_RESCUE_BENCH_CLASS_TURN
const recoveryPackage = new URL("../../../packages/recovery/package.json", import.meta.url).href

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === "@tool-rescue/recovery" && context.parentURL !== shim)
      return { url: shim, shortCircuit: true }
    if (context.parentURL === bundle && !specifier.startsWith(".") && !specifier.startsWith("node:"))
      return nextResolve(specifier, { ...context, parentURL: recoveryPackage })
    return nextResolve(specifier, context)
  },
})

const recovery = (await import("@tool-rescue/recovery")) as { readonly TURN?: string }
if (recovery.TURN !== "class-6efbb86") throw new Error("bench: the class-based turn is not in place")
await import("./proxy-process.ts")
