// Smoke test of the built packages: imports each `dist/index.js` and the adapters' kit entry (as a
// user would, through the package's `exports`, without the source condition) and checks the
// public names each one promises.
// Run by `turbo run smoke` on the workspace's Node 24; when SYSTEM_NODE is set (CI does), the
// packages whose `engines` claim an older Node are imported with that Node too.
// Then a real `tool-rescue serve` round-trip through the built CLI (a leak recovered, over HTTP)
// on this Node and on the lowest Node the CLI's `engines` declare (fetched with npx as the npm
// package `node@<version>`), and, on a SYSTEM_NODE the CLI does not support, its one-line refusal.
import { execFileSync, spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { nodeOf } from "./node-of.mjs"

const expected = {
  "@tool-rescue/detector": ["createDetector", "scan", "isRecoverable", "formats"],
  "@tool-rescue/recovery": ["runTurn", "ToolCallRecoveryError"],
  "@tool-rescue/recovery/adapter": ["planTurn", "turnRecoveries", "isRetryRequest", "createMarkupOutcomes"],
  "@tool-rescue/wire": ["chatCompletions", "responses", "messages"],
  "@tool-rescue/testing": ["startReplayServer", "leakedCall", "corpus"],
  "@tool-rescue/ai-sdk": ["toolCallRecoveryMiddleware"],
  "@tool-rescue/openai": ["withToolCallRecovery"],
  "@tool-rescue/effect": ["ToolCallRecovery"],
  "@tool-rescue/effect-openai-compat": ["openAiCompatibleModel", "make"],
  "@tool-rescue/proxy": ["createProxy", "createProxyMetrics", "parseMetricSamples"],
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

// The command as npm links it (a committed file that checks the Node, then loads `dist/bin.js`).
const bin = "packages/cli/bin/tool-rescue.js"

/** `tool-rescue serve` (the built CLI) run by `node` in front of the built replay server: a leak recovered. */
async function serveRoundTrip(node) {
  const { startReplayServer } = await import(
    new URL("../packages/testing/dist/index.js", import.meta.url).href
  )
  const leak =
    "<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n</function>\n</tool_call>"
  const upstream = await startReplayServer({
    script: [{ content: leak }, { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] }],
  })
  const child = spawn(node, [bin, "serve", "--port", "0", "--upstream", upstream.url])
  try {
    let stdout = ""
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const url = await new Promise((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        stdout += chunk
        const found = /listening on (\S+)/.exec(stdout)
        if (found !== null) resolve(found[1])
      })
      child.once("close", (code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
    })
    const response = await fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "read a.ts" }],
        tools: [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }],
      }),
    })
    const text = await response.text()
    if (
      !text.includes('"read_file"') ||
      text.includes("<tool_call>") ||
      upstream.requests.filter((r) => r.method === "POST").length !== 2
    )
      throw new Error(`no recovered call through serve:\n${text}`)
  } finally {
    child.kill("SIGTERM")
    await upstream.close()
  }
}

const cli = JSON.parse(readFileSync("packages/cli/package.json", "utf8"))
const lowest = /^>=(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(cli.engines.node)
const lowestVersion = lowest === null ? undefined : `${lowest[1]}.${lowest[2] ?? 0}.${lowest[3] ?? 0}`
const nodes = [process.execPath]
if (lowestVersion === undefined) {
  failed = true
  console.log(`FAIL the CLI's engines (${cli.engines.node}) name no lowest Node`)
} else if (lowestVersion !== process.versions.node) {
  try {
    nodes.push(nodeOf(lowestVersion))
  } catch (error) {
    failed = true
    console.log(`FAIL could not get Node ${lowestVersion} (npx node@${lowestVersion}): ${error.message}`)
  }
}
for (const node of nodes) {
  const version = execFileSync(node, ["--version"]).toString().trim()
  try {
    await serveRoundTrip(node)
    console.log(`ok   tool-rescue serve round-trip (node ${version})`)
  } catch (error) {
    failed = true
    console.log(`FAIL tool-rescue serve round-trip (node ${version}): ${error.message}`)
  }
}

// On a Node older than the CLI supports: one clear line and exit 1, not a failed import.
const system = process.env.SYSTEM_NODE
if (system) {
  const [major, minor] = execFileSync(system, ["--version"]).toString().slice(1).split(".").map(Number)
  if (
    lowest !== null &&
    (major < Number(lowest[1]) || (major === Number(lowest[1]) && minor < Number(lowest[2] ?? 0)))
  ) {
    let refused = { status: 0, stderr: "" }
    try {
      execFileSync(system, [bin, "--version"], { stdio: "pipe" })
    } catch (error) {
      refused = { status: error.status, stderr: error.stderr.toString() }
    }
    const lines = refused.stderr.trim().split("\n")
    if (refused.status === 1 && lines.length === 1 && lines[0].includes(`needs Node ${lowest[1]}.`))
      console.log(`ok   tool-rescue refuses an unsupported Node in one line (${lines[0]})`)
    else {
      failed = true
      console.log(
        `FAIL tool-rescue on an unsupported Node: exit ${refused.status}, stderr:\n${refused.stderr}`,
      )
    }
  }
}
process.exit(failed ? 1 : 0)
