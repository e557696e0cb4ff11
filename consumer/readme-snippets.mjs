// The ```ts snippets of the READMEs a user reads: the root's and each published package's.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"

/** The published packages (not `private`): `{ dir, manifest }[]`. */
export function publishedPackages(root) {
  return readdirSync(join(root, "packages"))
    .map((dir) => ({
      dir: join(root, "packages", dir),
      manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")),
    }))
    .filter((p) => !p.manifest.private)
}

/**
 * Every ```ts block of the READMEs (the root's, and those of `packages`: `{ dir }[]`), as its own
 * module file. A block whose info string says more than `ts` (```ts ai@6) is for other versions
 * than the ones installed here: its `only` names them, and the compile step leaves it out.
 */
export function readmeSnippets(root, packages) {
  const readmes = [join(root, "README.md"), ...packages.map((p) => join(p.dir, "README.md"))].filter(
    existsSync,
  )
  return readmes.flatMap((file) => {
    const lines = readFileSync(file, "utf8").split("\n")
    const installs = lines.flatMap((line, n) => {
      const match = /^npm install (?!-g)(.*)$/.exec(line.trim())
      return match ? [{ line: n + 1, packages: match[1].split(/\s+/).filter((w) => !w.startsWith("-")) }] : []
    })
    const out = []
    let block
    lines.forEach((line, n) => {
      const open = /^```ts(?:\s+(\S+))?\s*$/.exec(line)
      if (block === undefined && open !== null) block = { start: n + 2, only: open[1], lines: [] }
      else if (block !== undefined && /^```\s*$/.test(line)) {
        const where = relative(root, file)
        const stem = where.replaceAll(/[^a-z0-9]+/gi, "-").toLowerCase()
        const code = block.lines.join("\n")
        out.push({
          where,
          start: block.start,
          only: block.only,
          // The install line a reader runs before pasting this block: the last one above it, or
          // the README's first when the block comes before any.
          install: installs.findLast((i) => i.line < block.start) ?? installs[0],
          code,
          file: `readme-${stem}-${block.start}.ts`,
          module: `// ${where}, line ${block.start}\n${code}\nexport {}\n`,
        })
        block = undefined
      } else if (block !== undefined) block.lines.push(line)
    })
    return out
  })
}
