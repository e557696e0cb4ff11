// The README snippets run as pasted, in a fresh npm project, on each Node a user may have.
// Runs after `check.mjs`, from the tarballs it packed (`.work/packs`).
//
// 1. `npm init -y`, `"type": "module"` (as every README says), and `npm install` of the tarballs
//    with every other package the READMEs' install lines name, at the versions `check.mjs`
//    compiled against (this package's devDependencies). Then every ```ts snippet that is a
//    program (a snippet with `declare` names what the reader already has: it is compiled only)
//    runs, its local URLs pointed at the replay server, on Node 24 and on the lowest Node 22
//    every package supports (npm's `node@<version>` package, through npx, as the smoke test does).
// 2. Node 20 with the AI SDK README's own line for it (`ai@6`): the root entry fails with the one
//    error naming `@tool-rescue/ai-sdk/v6`, before any request; the README's `/v6` snippet
//    recovers a leaked call.
import { execFileSync, spawn } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { nodeOf } from "../scripts/node-of.mjs"
import { publishedPackages, readmeSnippets } from "./readme-snippets.mjs"
import { packFile } from "./src/pack-file.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, "..")
const work = join(here, ".work")
const packs = readdirSync(join(work, "packs")).map((file) => join(work, "packs", file))
const ts = createRequire(import.meta.url)("typescript-6.0")
const pinned = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).devDependencies
const packages = publishedPackages(root)
const snippets = readmeSnippets(root, packages)

// pnpm's own setting, which the npm and npx run here would warn about (it is not npm's).
delete process.env.npm_config_verify_deps_before_run

const problems = []
const fail = (message) => problems.push(message)
const started = performance.now()

/** A fresh `npm init -y` project with `"type": "module"` and `specs` installed. */
function freshProject(name, specs) {
  const dir = join(work, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  execFileSync("npm", ["init", "-y"], { cwd: dir, stdio: "ignore" })
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  writeFileSync(join(dir, "package.json"), JSON.stringify({ ...manifest, type: "module" }, null, 2))
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", ...specs],
    {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"],
    },
  )
  return dir
}

/** The snippet's local server URLs pointed at `url` (the replay server's `…/v1`). */
function pointedAt(code, url) {
  const origin = new URL(url).origin
  return code.replaceAll(/http:\/\/(?:localhost|127\.0\.0\.1):\d+/g, origin)
}

/** The snippet as JavaScript (types erased, nothing else changed). */
function javascript(code) {
  return ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText
}

/**
 * Runs `file` with `node` in `cwd`; killed after 60 s. A `server` (a snippet that prints its URL
 * and listens until SIGTERM) is asked `GET /healthz` (its answer also proves the script went on
 * past the line it printed, to its SIGTERM handler), then stopped with SIGTERM: it must exit 0.
 */
function run(node, file, cwd, { server = false } = {}) {
  return new Promise((done) => {
    const child = spawn(node, [file], { cwd, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    let unhealthy = false
    child.stdout.on("data", (chunk) => {
      const first = output === ""
      output += chunk
      if (server && first) {
        fetch(new URL("/healthz", output.trim()))
          .then((response) => {
            if (!response.ok) throw new Error(String(response.status))
          })
          .catch((error) => {
            unhealthy = true
            output += `\nGET /healthz: ${error.message}`
          })
          .finally(() => child.kill("SIGTERM"))
      }
    })
    child.stderr.on("data", (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      done({ code: unhealthy ? -1 : code, signal, output })
    })
  })
}

const packageName = (installed) => installed.replace(/(?<=.)@.*$/, "") // zod@4 → zod

// ---- 1. every snippet, on Node 24 and Node 22 ----------------------------------------------------
const programs = snippets.filter((s) => s.only === undefined && !/^\s*declare /m.test(s.code))
const thirdParty = [
  ...new Set(
    programs
      .flatMap((s) => s.install?.packages ?? [])
      .map(packageName)
      .filter((name) => !name.startsWith("@tool-rescue/")),
  ),
].map((name) => (pinned[name] === undefined ? name : `${name}@${pinned[name]}`))
const fresh = freshProject("fresh", [...packs, ...thirdParty])
// The user's own file the CLI README's snippet scans (`main(["scan", "responses.jsonl"], …)`).
writeFileSync(join(fresh, "responses.jsonl"), `${JSON.stringify({ text: "The port is 4173.", tools: [] })}\n`)

// The lowest Node 22 every package supports: the highest `>=22.x` floor among their engines.
const floors = packages
  .map((p) => /^>=22(?:\.(\d+))?(?:\.(\d+))?$/.exec(p.manifest.engines?.node ?? ""))
  .filter((m) => m !== null)
  .map((m) => [Number(m[1] ?? 0), Number(m[2] ?? 0)])
  .sort((a, b) => b[0] - a[0] || b[1] - a[1])
const node22 = `22.${floors[0]?.[0] ?? 0}.${floors[0]?.[1] ?? 0}`
const nodes = [process.execPath, nodeOf(node22)]

const { startReplayServer } = await import(
  pathToFileURL(join(fresh, "node_modules/@tool-rescue/testing/dist/index.js")).href
)
const replay = await startReplayServer({ script: () => ({ content: "A scripted answer." }) })
try {
  for (const snippet of programs) {
    writeFileSync(
      join(fresh, snippet.file.replace(/\.ts$/, ".mjs")),
      javascript(pointedAt(snippet.code, replay.url)),
    )
  }
  for (const node of nodes) {
    const version = execFileSync(node, ["--version"]).toString().trim()
    // Two at a time: each is a Node process importing a framework.
    const queue = [...programs]
    const failed = []
    await Promise.all(
      [0, 1].map(async () => {
        for (let snippet = queue.shift(); snippet !== undefined; snippet = queue.shift()) {
          const result = await run(node, snippet.file.replace(/\.ts$/, ".mjs"), fresh, {
            server: snippet.code.includes('process.once("SIGTERM"'),
          })
          if (result.code !== 0)
            failed.push(
              `${snippet.where}:${snippet.start} on Node ${version}: ${result.signal ?? `exit ${result.code}`}\n${result.output.slice(-1500)}`,
            )
        }
      }),
    )
    for (const f of failed) fail(f)
    if (failed.length === 0)
      console.log(`ok   Node ${version}: the ${programs.length} README programs run in a fresh npm project`)
  }
} finally {
  await replay.close()
}

// ---- 2. Node 20: ai@6 -------------------------------------------------------------------------
const v6Snippet = snippets.find((s) => s.where === "packages/ai-sdk/README.md" && s.only === "ai@6")
if (v6Snippet === undefined) fail("packages/ai-sdk/README.md has no ```ts ai@6 snippet")
else {
  // The README's install line, with our tarballs in place of the registry's.
  const ours = (name) => packFile(packs, name)
  const specs = v6Snippet.install.packages.map((p) => (p.startsWith("@tool-rescue/") ? ours(p) : p))
  const dependencies = ["@tool-rescue/recovery", "@tool-rescue/detector"].map(ours)
  const project = freshProject("fresh-node20", [...specs, ...dependencies])
  const node20 = nodeOf("20")
  const version = execFileSync(node20, ["--version"]).toString().trim()
  const leak =
    "<tool_call>\n<function=Glob>\n<parameter=pattern>\n*.md\n</parameter>\n</function>\n</tool_call>"
  const server = await startReplayServer({
    script: [{ content: leak }, { toolCalls: [{ name: "Glob", arguments: '{"pattern":"*.md"}' }] }],
  })
  try {
    const call = `
import { generateText, jsonSchema, tool } from "ai"
const result = await generateText({
  model,
  prompt: "List the markdown files.",
  tools: { Glob: tool({ inputSchema: jsonSchema({ type: "object", properties: { pattern: { type: "string" } } }) }) },
})
console.log(JSON.stringify(result.toolCalls.map((c) => c.toolName)))
`
    const root6 = pointedAt(v6Snippet.code, server.url).replace(
      '"@tool-rescue/ai-sdk/v6"',
      '"@tool-rescue/ai-sdk"',
    )
    writeFileSync(join(project, "root-entry.mjs"), javascript(root6) + call)
    writeFileSync(join(project, "v6-entry.mjs"), javascript(pointedAt(v6Snippet.code, server.url)) + call)
    const rootRun = await run(node20, "root-entry.mjs", project)
    const errors = rootRun.output.split("\n").filter((line) => line.includes("Error"))
    if (
      rootRun.code === 0 ||
      !rootRun.output.includes('"@tool-rescue/ai-sdk/v6"') ||
      server.requests.length > 0
    )
      fail(
        `Node ${version}, ai@6, the root entry: not the one error naming /v6 before any request:\n${rootRun.output}`,
      )
    else
      console.log(`ok   Node ${version}, ai@6: the root entry fails with ${errors[0]?.trim().slice(0, 90)}…`)
    const v6Run = await run(node20, "v6-entry.mjs", project)
    if (v6Run.code !== 0 || v6Run.output.trim() !== '["Glob"]' || server.requests.length !== 2)
      fail(
        `Node ${version}, ai@6, the README's /v6 snippet did not recover the leaked call:\n${v6Run.output}`,
      )
    else console.log(`ok   Node ${version}, ai@6: the README's /v6 snippet recovers a leaked call`)
  } finally {
    await server.close()
  }
}

console.log(`     (${((performance.now() - started) / 1000).toFixed(0)} s)`)
if (problems.length > 0) {
  for (const p of problems) console.error(`FAIL ${p}`)
  process.exit(1)
}
