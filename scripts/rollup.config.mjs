// The one rollup config every package builds with (run from the package directory).
// Entries come from the package's own `exports` map: each subpath's `@tool-rescue/source`
// file is built to its `default` (ESM) and its `types` (one bundled .d.ts per entry).
import { readFileSync } from "node:fs"
import { basename, extname, resolve } from "node:path"
import { dts } from "rollup-plugin-dts"
import esbuild from "rollup-plugin-esbuild"

const pkg = JSON.parse(readFileSync(resolve("package.json"), "utf8"))

/** @type {Array<{ name: string, source: string, js: string, types: string }>} */
const entries = Object.values(pkg.exports)
  .filter((target) => typeof target === "object" && target["@tool-rescue/source"])
  .map((target) => ({
    name: basename(target.default, extname(target.default)),
    source: target["@tool-rescue/source"],
    js: target.default,
    types: target.types,
  }))

// Every bare specifier (dependencies, peers, node: built-ins) stays an import.
const external = (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0")
const input = Object.fromEntries(entries.map((e) => [e.name, e.source]))

export default [
  {
    input,
    external,
    plugins: [esbuild({ target: "es2022", tsconfig: "tsconfig.json", sourceMap: true })],
    output: {
      dir: "dist",
      format: "esm",
      entryFileNames: "[name].js",
      chunkFileNames: "[name]-[hash].js",
      sourcemap: true,
    },
  },
  {
    input,
    external,
    plugins: [
      dts({
        tsconfig: "tsconfig.json",
        compilerOptions: { noEmit: false, emitDeclarationOnly: true, allowImportingTsExtensions: true },
      }),
    ],
    output: {
      dir: "dist",
      format: "esm",
      entryFileNames: "[name].d.ts",
      chunkFileNames: "[name]-[hash].d.ts",
    },
  },
]
