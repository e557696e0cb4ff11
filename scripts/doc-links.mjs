// Every document the repository points to is in the repository: a README, a source comment or a
// help text that names `SOMETHING.md` (a bare name, a relative path, a Markdown link) must name a
// file it holds, and a Markdown link to a heading (`ARCHITECTURE.md#the-layers`) must find the
// heading. Relative Markdown links in `.md` files are checked whatever they point to, and a
// decision record cited by number (`ADR-` and digits) must be a file of the repository too.
//
// Read, per file (tracked, or new and not ignored):
// - `.md` files: the whole text;
// - code in `packages/*/src`, `scripts` and `bench/src`: the whole text (comments, and the strings
//   users read: help text, error messages);
// - other code (tests, type tests, examples, configs): comments only, since test data names files
//   that are not documents (`README.md and CHANGELOG.md.` as a model's answer).
// A name resolves against the file's folder, its package's folder, then the repository root.
//
//   node scripts/doc-links.mjs
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, posix, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const ts = createRequire(import.meta.url)("typescript")

const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\0")
  .filter((file) => file !== "" && existsSync(join(root, file)))
const held = new Set(files)
// Folders the repository holds (a Markdown link may point to one).
const folders = new Set(
  files.flatMap((file) =>
    file
      .split("/")
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join("/")),
  ),
)

const CODE = /\.(?:[cm]?[jt]s|tsx)$/
const WHOLE_CODE = /^(?:packages\/[^/]+\/src|scripts|bench\/src)\//

const problems = []
let checked = 0
const anchorCache = new Map()

const self = posix.relative(root, import.meta.filename).replaceAll("\\", "/")
const reported = new Set()

for (const file of files) {
  const isMarkdown = file.endsWith(".md")
  // This file's own comments describe the names it looks for.
  if ((!isMarkdown && !CODE.test(file)) || file === self) continue
  const text = readFileSync(join(root, file), "utf8")
  const read = isMarkdown || WHOLE_CODE.test(file) ? [{ from: 0, text }] : comments(file, text)
  for (const piece of read) {
    for (const ref of mdReferences(piece.text))
      check(file, text, piece.from + ref.index, ref.target, ref.anchor)
    if (isMarkdown) {
      for (const link of markdownLinks(piece.text))
        check(file, text, piece.from + link.index, link.target, link.anchor)
    }
    for (const record of piece.text.matchAll(/\bADR-\d+/g)) {
      const name = record[0]
      if (!files.some((held) => posix.basename(held).startsWith(name))) {
        report(
          file,
          text,
          piece.from + record.index,
          `${name} is cited, and no such record is in the repository`,
        )
      }
    }
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem)
  console.error(`doc-links: ${problems.length} reference(s) to documents the repository does not hold`)
  process.exit(1)
}
console.log(`doc-links: ${checked} references to documents, all held`)

/** `NAME.md`, `path/NAME.md`, `../NAME.md`, each with its `#anchor` when one follows. */
function* mdReferences(text) {
  // The whole run of path characters that ends in `.md`: a URL's tail (after `://`), an absolute
  // path (`/a.md`) and a pattern (`*.md`, `${name}.md`, `<name>.md`) are no reference here.
  const pattern = /[\w@./-]*\.md(?![\w-])(#[\w-]+)?/g
  for (const match of text.matchAll(pattern)) {
    const [whole, anchor] = match
    const target = anchor === undefined ? whole : whole.slice(0, -anchor.length)
    const before = text[match.index - 1]
    // A shell redirect's target (`… --markdown > leaks.md`) is a file the command writes.
    const redirect = /> ?$/.test(text.slice(Math.max(0, match.index - 2), match.index))
    if (before === ":" || redirect || target.startsWith("/") || /(?:^|\/)\.md$/.test(target)) continue
    yield { index: match.index, target, anchor: anchor?.slice(1) }
  }
}

/** Relative Markdown link targets: `[text](path)`, `[text](path#anchor)`, `[ref]: path`. */
function* markdownLinks(text) {
  const pattern = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)/gm
  for (const match of text.matchAll(pattern)) {
    const raw = match[1] ?? match[2]
    if (/^(?:[a-z][a-z0-9+.-]*:|#|\/)/i.test(raw)) continue // a URL, a heading here, an absolute path
    const hash = raw.indexOf("#")
    const target = decodeURI(hash === -1 ? raw : raw.slice(0, hash))
    if (target.endsWith(".md")) continue // already read as a name, with its anchor
    yield { index: match.index, target, anchor: hash === -1 ? undefined : raw.slice(hash + 1) }
  }
}

function check(file, text, index, target, anchor) {
  checked++
  const found = resolveTarget(file, target)
  if (found === undefined) report(file, text, index, `${target} is not in the repository`)
  else if (anchor !== undefined && found.endsWith(".md") && !anchorsOf(found).has(anchor.toLowerCase())) {
    report(file, text, index, `${target} has no heading #${anchor}`)
  }
}

/** One problem per line and message (a link `[X.md](X.md)` names its target twice). */
function report(file, text, index, message) {
  const line = `${file}:${text.slice(0, index).split("\n").length}: ${message}`
  if (reported.has(line)) return
  reported.add(line)
  problems.push(line)
}

/** The repository path `target` names from `file`, or undefined. */
function resolveTarget(file, target) {
  const dir = dirname(file)
  const pkg = /^packages\/[^/]+/.exec(file)?.[0]
  const bases = [dir, ...(pkg === undefined ? [] : [pkg]), "."]
  for (const base of bases) {
    const path = posix.normalize(posix.join(base, target)).replace(/\/$/, "")
    if (path.startsWith("..")) continue
    if (held.has(path) || folders.has(path) || path === ".") return path
  }
  return undefined
}

/** The heading anchors of a Markdown file, as GitHub makes them (and explicit `<a id>`s). */
function anchorsOf(path) {
  let anchors = anchorCache.get(path)
  if (anchors !== undefined) return anchors
  anchors = new Set()
  const seen = new Map()
  let fence
  for (const line of readFileSync(join(root, path), "utf8").split("\n")) {
    // CommonMark §4.5: a backtick fence's info string holds no backtick (```` ```json ```` in a
    // line of prose is a code span), and a closing fence is followed by spaces only.
    const [, mark, rest = ""] = /^\s{0,3}(`{3,}|~{3,})(.*)$/.exec(line) ?? []
    if (fence === undefined) {
      if (mark !== undefined && !(mark[0] === "`" && rest.includes("`"))) {
        fence = mark
        continue
      }
    } else {
      if (mark !== undefined && mark[0] === fence[0] && mark.length >= fence.length && rest.trim() === "")
        fence = undefined
      continue
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1].toLowerCase())
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // a link's text only
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/\s/g, "-")
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    anchors.add(n === 0 ? slug : `${slug}-${n}`)
  }
  anchorCache.set(path, anchors)
  return anchors
}

/**
 * The comments of a code file, with their offsets. Literals (strings, templates, regular
 * expressions) come from TypeScript's parser, so a `//` inside one is never taken for a comment.
 */
function comments(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, scriptKind(file))
  const literals = []
  const visit = (node) => {
    switch (node.kind) {
      case ts.SyntaxKind.StringLiteral:
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
      case ts.SyntaxKind.TemplateHead:
      case ts.SyntaxKind.TemplateMiddle:
      case ts.SyntaxKind.TemplateTail:
      case ts.SyntaxKind.RegularExpressionLiteral:
      case ts.SyntaxKind.JsxText:
        literals.push([node.getStart(source), node.end])
        return
      default:
        ts.forEachChild(node, visit)
    }
  }
  visit(source)
  literals.sort((a, b) => a[0] - b[0])
  const out = []
  let next = 0
  for (let i = 0; i < text.length; i++) {
    while (next < literals.length && literals[next][1] <= i) next++
    if (next < literals.length && literals[next][0] <= i) {
      i = literals[next][1] - 1
      continue
    }
    if (text[i] !== "/" || (text[i + 1] !== "/" && text[i + 1] !== "*")) continue
    const close = text[i + 1] === "/" ? text.indexOf("\n", i) : text.indexOf("*/", i + 2)
    const stop = close === -1 ? text.length : text[i + 1] === "/" ? close : close + 2
    out.push({ from: i, text: text.slice(i, stop) })
    i = stop - 1
  }
  return out
}

function scriptKind(file) {
  if (file.endsWith(".tsx")) return ts.ScriptKind.TSX
  return /\.[cm]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS
}
