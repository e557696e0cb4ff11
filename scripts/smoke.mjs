// Smoke test of the built packages: imports each `dist/index.js` and the adapters' kit entry (as a
// user would, through the package's `exports`, without the source condition) and checks the
// public names each one promises.
// Run by `turbo run smoke` on the workspace's Node 24; when SYSTEM_NODE is set (CI does), the
// packages whose `engines` claim an older Node are imported with that Node too.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"

const expected = {
  "@tool-rescue/detector": ["createDetector", "scan", "isRecoverable", "formats"],
  "@tool-rescue/recovery": ["runTurn", "ToolCallRecoveryError"],
  "@tool-rescue/recovery/adapter": ["planTurn", "turnRecoveries", "isRetryRequest"],
  "@tool-rescue/wire": ["chatCompletions", "responses", "messages"],
  "@tool-rescue/testing": ["startReplayServer", "leakedCall", "corpus"],
  "@tool-rescue/ai-sdk": ["toolCallRecoveryMiddleware"],
  "@tool-rescue/openai": ["withToolCallRecovery"],
  "@tool-rescue/effect": ["ToolCallRecovery"],
  "@tool-rescue/effect-openai-compat": ["openAiCompatibleModel", "make"],
  "@tool-rescue/proxy": ["createProxy", "createProxyMetrics"],
  "@tool-rescue/langchain": ["withToolCallRecovery", "toolCallRecoveryMiddleware"],
  "@tool-rescue/cli": [],
}

const checkScript = (name, names) => `
  const m = await import(${JSON.stringify(name)});
  const missing = ${JSON.stringify(names)}.filter((n) => !(n in m));
  if (missing.length) { console.error(${JSON.stringify(name)} + " is missing " + missing.join(", ")); process.exit(1) }
`
let failed = false
const run = (node, name, names, cwd) => {
  try {
    execFileSync(node, ["--input-type=module", "-e", checkScript(name, names)], { cwd, stdio: "inherit" })
    console.log(`ok   ${name} (node ${execFileSync(node, ["--version"]).toString().trim()})`)
  } catch {
    failed = true
    console.log(`FAIL ${name} (node at ${node})`)
  }
}

for (const [name, names] of Object.entries(expected)) {
  const dir = `packages/${name.split("/")[1]}` // a subpath entry is its package's
  const pkg = JSON.parse(readFileSync(`${dir}/package.json`, "utf8"))
  // Resolve from the cli package, which depends on every library package; a package the cli does
  // not use (langchain) resolves itself by its own name, with its peers from its own folder.
  const cwd = existsSync(`packages/cli/node_modules/${name}`) ? "packages/cli" : dir
  run(process.execPath, name, names, cwd)
  const minimum = Number(/\d+/.exec(pkg.engines?.node ?? "")?.[0] ?? 0)
  const system = process.env.SYSTEM_NODE
  if (system) {
    const systemMajor = Number(/\d+/.exec(execFileSync(system, ["--version"]).toString())[0])
    if (systemMajor >= minimum && systemMajor !== Number(process.versions.node.split(".")[0]))
      run(system, name, names, cwd)
  }
}
process.exit(failed ? 1 : 0)
