// Smoke test of the built packages: imports each `dist/index.js` and the adapters' kit entry (as a
// user would, through the package's `exports`, without the source condition) and checks the
// public names each one promises.
// Run by `turbo run smoke` on the workspace's Node 24; when SYSTEM_NODE is set (CI does), the
// packages whose `engines` claim an older Node are imported with that Node too.
import { execFileSync, spawnSync } from "node:child_process"
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

// The `tool-rescue` command as npm links it: it runs on the workspace's Node, and on a Node older
// than its `engines` (CI's system Node, when older) it says so in one line instead of crashing.
const bin = "packages/cli/bin/tool-rescue.js"
const cliMinimum = JSON.parse(readFileSync("packages/cli/package.json", "utf8")).engines.node
for (const node of [process.execPath, process.env.SYSTEM_NODE].filter(Boolean)) {
  const version = execFileSync(node, ["--version"]).toString().trim()
  const result = spawnSync(node, [bin, "--version"], { encoding: "utf8" })
  const supported = Number(version.slice(1).split(".")[0]) >= Number(/\d+/.exec(cliMinimum)[0])
  const ok = supported
    ? result.status === 0 && /\d+\.\d+\.\d+/.test(result.stdout)
    : result.status === 1 && result.stderr.split("\n").filter(Boolean).length === 1 && result.stderr.includes(version.slice(1))
  if (!ok) failed = true
  console.log(`${ok ? "ok  " : "FAIL"} ${bin} (node ${version}: ${supported ? "runs" : "one line naming the Node"})`)
  if (!ok) console.log(result.stdout + result.stderr)
}
process.exit(failed ? 1 : 0)
