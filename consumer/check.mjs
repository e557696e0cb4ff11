// A user's view of the published packages, checked on every supported TypeScript.
//
// 1. `pnpm pack` every public package (pnpm applies `publishConfig`, as `pnpm publish` does) and
//    check the tarball's manifest: no internal `@tool-rescue/source` condition, sources shipped
//    once (in the source maps, not also as `src/`), ranges rather than exact pins for the
//    dependencies users share with us, and published `exports` that are the source `exports`
//    without the condition (so the two maps cannot drift).
// 2. Unpack the tarballs into `.work/node_modules` and compile, with `skipLibCheck: false`:
//    - `exports.ts`, generated from each package's source entry points: every public export is
//      named through the *published* declarations (types as types, values with `typeof`, and
//      the members of namespace exports such as `ToolCallRecovery.ToolCallErrorPart`);
//    - `consumer.ts`: hand-written uses of the public types, with type-level assertions;
//    - every ```ts snippet of the READMEs, each as its own module, as pasted.
//    The same files go through TypeScript 5.8, 6.0 and 7 (the native compiler).
// 3. Each README's install line brings every package its snippets import, and the README tells
//    the reader the snippets are ES modules (`"type": "module"`).
// 4. `run.mjs` (next in `test:dist`) runs the snippets in a fresh npm project on Node 24, 22 and 20.
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { publishedPackages, readmeSnippets } from "./readme-snippets.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, "..")
const work = join(here, ".work")
const require = createRequire(import.meta.url)
const ts = require("typescript-6.0")

const compilers = [
  { name: "TypeScript 5.8", tsc: join(here, "node_modules/typescript-5.8/bin/tsc") },
  { name: "TypeScript 6.0", tsc: join(here, "node_modules/typescript-6.0/bin/tsc") },
  { name: "TypeScript 7", tsc: join(here, "node_modules/typescript-7/bin/tsc") },
]

const problems = []
const fail = (message) => problems.push(message)

rmSync(work, { recursive: true, force: true })
mkdirSync(join(work, "packs"), { recursive: true })
mkdirSync(join(work, "src"), { recursive: true })

const packages = publishedPackages(root)

// ---- 1. pack and check the manifests --------------------------------------------------------
const withoutSource = (value) =>
  typeof value === "object" && value !== null
    ? Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => key !== "@tool-rescue/source")
          .map(([key, v]) => [key, withoutSource(v)]),
      )
    : value

for (const pkg of packages) {
  const name = pkg.manifest.name
  const before = new Set(readdirSync(join(work, "packs")))
  execFileSync("pnpm", ["pack", "--pack-destination", join(work, "packs")], { cwd: pkg.dir, stdio: "ignore" })
  const tarball = readdirSync(join(work, "packs")).find((f) => !before.has(f))
  const target = join(work, "node_modules", name)
  mkdirSync(target, { recursive: true })
  execFileSync("tar", ["-xzf", join(work, "packs", tarball), "-C", target, "--strip-components=1"])

  const published = readJson(join(target, "package.json"))
  const text = JSON.stringify(published.exports)
  if (text.includes("@tool-rescue/source")) fail(`${name}: the published exports carry the source condition`)
  if (JSON.stringify(published.exports) !== JSON.stringify(withoutSource(pkg.manifest.exports)))
    fail(`${name}: publishConfig.exports is not the source exports without the @tool-rescue/source condition`)
  if (existsSync(join(target, "src"))) {
    const maps = listFiles(join(target, "dist")).filter((f) => f.endsWith(".map"))
    if (maps.some((f) => readJson(f).sourcesContent?.some((s) => s != null)))
      fail(`${name}: ships its sources twice (src/ and the source maps' sourcesContent)`)
  }
  for (const [dep, range] of Object.entries(published.dependencies ?? {})) {
    if (dep.startsWith("@tool-rescue/")) continue
    if (/^\d/.test(range)) fail(`${name}: dependency ${dep} is pinned to ${range}; publish a range`)
  }
  if (published.bin && published.sideEffects === false)
    fail(`${name}: "sideEffects": false lets a bundler drop the bin entry`)
}

// The proxy's users need no `openai` client: its declarations do not reach for `openai` types
// (directly or through `@tool-rescue/openai`), and the adapter's `openai` peer is optional, so
// installing the proxy (which uses the adapter's wire readers) does not install the client.
for (const file of listFiles(join(work, "node_modules/@tool-rescue/proxy/dist"))) {
  if (
    file.endsWith(".d.ts") &&
    /from ['"](?:openai|@tool-rescue\/openai)(?:\/[^'"]*)?['"]/.test(readFileSync(file, "utf8"))
  )
    fail(
      `@tool-rescue/proxy: ${relative(work, file)} imports openai types; proxy users would need openai installed`,
    )
}
if (
  readJson(join(work, "node_modules/@tool-rescue/openai/package.json")).peerDependenciesMeta?.openai
    ?.optional !== true
)
  fail("@tool-rescue/openai: the openai peer is not optional, so npm installs openai for every proxy user")

// ---- 2. the files a user writes --------------------------------------------------------------
writeFileSync(join(work, "package.json"), `${JSON.stringify({ type: "module", private: true }, null, 2)}\n`)
writeFileSync(
  join(work, "tsconfig.json"),
  `${JSON.stringify(
    {
      compilerOptions: {
        target: "es2022",
        lib: ["es2023", "dom"],
        module: "nodenext",
        moduleResolution: "nodenext",
        // A user's strict project; our own stricter flags (exactOptionalPropertyTypes, …) are
        // not a user's default, and `ai`'s own declarations do not pass them.
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ["node"],
      },
      include: ["src"],
    },
    null,
    2,
  )}\n`,
)
writeFileSync(join(work, "src/exports.ts"), exportsFile())
cpSync(join(here, "consumer.ts"), join(work, "src/consumer.ts"))
const snippets = readmeSnippets(root, packages).filter((snippet) => snippet.only === undefined)
for (const snippet of snippets) writeFileSync(join(work, "src", snippet.file), snippet.module)
checkInstallLines(snippets)

for (const { name, tsc } of compilers) {
  const version = execFileSync(process.execPath, [tsc, "--version"]).toString().trim()
  try {
    execFileSync(process.execPath, [tsc, "-p", join(work, "tsconfig.json")], { cwd: work, stdio: "pipe" })
    console.log(`ok   ${name} (${version}): exports, consumer.ts and the README snippets compile`)
  } catch (error) {
    fail(`${name} (${version}) reports errors:\n${error.stdout}${error.stderr}`)
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(`FAIL ${p}`)
  process.exit(1)
}

// ---- helpers ---------------------------------------------------------------------------------
function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"))
}

/**
 * A reader pastes a README's install line, then its snippets, into a fresh `npm init -y` project:
 * the install line must bring every package the snippets import, and the README must say that the
 * snippets are ES modules (`npm init -y` writes `"type": "commonjs"`, where top-level await fails).
 */
function checkInstallLines(snippets) {
  const packageOf = (specifier) =>
    specifier
      .split("/")
      .slice(0, specifier.startsWith("@") ? 2 : 1)
      .join("/")
  const nameOf = (installed) => installed.replace(/(?<=.)@.*$/, "") // zod@4 → zod, @scope/x@2 → @scope/x
  const saysModule = new Map()
  for (const snippet of snippets) {
    const imported = [
      ...snippet.code.matchAll(/^\s*(?:import|export)\b[^"'\n]*?(?:from\s*)?["']([^"']+)["']/gm),
    ]
      .map((m) => m[1])
      .filter((s) => !s.startsWith("node:") && !s.startsWith("."))
      .map(packageOf)
    if (imported.length === 0) continue
    const where = `${snippet.where}:${snippet.start}`
    if (snippet.install === undefined) {
      fail(`${where}: the README has no \`npm install\` line for the packages this snippet imports`)
      continue
    }
    const installed = new Set(snippet.install.packages.map(nameOf))
    const missing = [...new Set(imported)].filter((name) => !installed.has(name))
    if (missing.length > 0)
      fail(
        `${where}: imports ${missing.join(", ")}, which its install line (line ${snippet.install.line}) leaves out`,
      )
    if (!saysModule.has(snippet.where))
      saysModule.set(
        snippet.where,
        readFileSync(join(root, snippet.where), "utf8").includes('"type": "module"'),
      )
    if (!saysModule.get(snippet.where)) {
      fail(
        `${snippet.where}: its snippets are ES modules, but it does not tell the reader to set "type": "module"`,
      )
      saysModule.set(snippet.where, true) // once per README
    }
  }
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)],
  )
}

/** One line per public export of every entry point, read from the sources with the compiler API. */
function exportsFile() {
  const entries = packages.flatMap((pkg) =>
    Object.entries(pkg.manifest.exports)
      .filter(([, target]) => typeof target === "object" && target["@tool-rescue/source"])
      .map(([subpath, target]) => ({
        specifier: subpath === "." ? pkg.manifest.name : `${pkg.manifest.name}/${subpath.slice(2)}`,
        source: join(pkg.dir, target["@tool-rescue/source"]),
      })),
  )
  const program = ts.createProgram(
    entries.map((e) => e.source),
    {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      customConditions: ["@tool-rescue/source"],
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      types: ["node"],
      typeRoots: [join(root, "node_modules/@types")],
    },
  )
  const checker = program.getTypeChecker()
  const lines = ["// Generated by consumer/check.mjs from the packages' source entry points.", ""]
  entries.forEach((entry, i) => {
    const alias = `p${i}`
    const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry.source))
    // An entry with no exports (the CLI's `./bin`, a script) has nothing to name.
    const symbols = moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol)
    if (symbols.length === 0) return
    lines.push(`import type * as ${alias} from ${JSON.stringify(entry.specifier)}`)
    for (const symbol of symbols) walk(symbol, `${alias}.${symbol.name}`, lines)
  })
  return `${lines.join("\n")}\n`

  function walk(symbol, path, out) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    const id = path.replaceAll(".", "_")
    if (target.flags & ts.SymbolFlags.ValueModule) {
      // A namespace export (`export * as X`): name each member through it.
      for (const member of checker.getExportsOfModule(target)) walk(member, `${path}.${member.name}`, out)
      return
    }
    if (target.flags & ts.SymbolFlags.Value) out.push(`type V_${id} = typeof ${path}`)
    if (target.flags & ts.SymbolFlags.Type) {
      const params = (target.declarations ?? []).flatMap((d) => d.typeParameters ?? [])
      const required = params.filter((p) => p.default === undefined).length
      const args = required > 0 ? `<${Array.from({ length: required }, () => "any").join(", ")}>` : ""
      out.push(`type T_${id} = ${path}${args}`)
    }
  }
}
