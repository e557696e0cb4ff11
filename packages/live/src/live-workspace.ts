/**
 * The disposable workspace of a live run, its real file tools, and the approval gate every write
 * goes through. The tools are data (name, description, zod schema) so each adapter declares the
 * same three tools in its framework's own way.
 */
import { existsSync } from "node:fs"
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises"
import { isAbsolute, join, relative, resolve, sep } from "node:path"
import { z } from "zod"

/** A write the model asked for, as the gate sees it. */
export interface WriteRequest {
  /** The path exactly as the model wrote it. */
  readonly path: string
  readonly content: string
}

/** The gate's answer: a denied write never runs, and the model gets `reason` as the tool result. */
export type GateDecision = { readonly approved: true } | { readonly approved: false; readonly reason: string }

/** Decides whether a write may run (an agent's permission prompt, or a policy). */
export type WriteGate = (request: WriteRequest) => GateDecision | Promise<GateDecision>

/**
 * The live run's policy: approve a relative path inside `dir`, deny anything else (an absolute
 * path, a path escaping `dir`, `dir` itself).
 *
 * @example
 * ```ts
 * const gate = insideWorkspace("/tmp/ws")
 * gate({ path: "notes.txt", content: "" }) // { approved: true }
 * gate({ path: "../x", content: "" }) // { approved: false, reason: "…escapes the workspace" }
 * ```
 */
export function insideWorkspace(dir: string): (request: WriteRequest) => GateDecision {
  return ({ path }) => {
    if (isAbsolute(path)) return { approved: false, reason: `denied: ${path} is an absolute path` }
    const inside = relative(dir, resolve(dir, path))
    if (inside === "" || inside === ".." || inside.startsWith(`..${sep}`)) {
      return { approved: false, reason: `denied: ${path} escapes the workspace` }
    }
    return { approved: true }
  }
}

const pathSchema: z.ZodObject<{ path: z.ZodString }> = z.object({
  path: z.string().describe("Path relative to the project directory"),
})
const listSchema: z.ZodObject<{ path: z.ZodOptional<z.ZodString> }> = z.object({
  path: z.string().optional().describe("Directory relative to the project directory (default: all)"),
})
const writeSchema: z.ZodObject<{ path: z.ZodString; content: z.ZodString }> = z.object({
  path: z.string().describe("Path relative to the project directory"),
  content: z.string().describe("The whole new content of the file"),
})

/** The tools, as every adapter declares them. */
export const toolSpecs: {
  readonly read_file: { readonly description: string; readonly schema: typeof pathSchema }
  readonly list_files: { readonly description: string; readonly schema: typeof listSchema }
  readonly write_file: { readonly description: string; readonly schema: typeof writeSchema }
} = {
  read_file: {
    description: "Read a text file of the project and return its content.",
    schema: pathSchema,
  },
  list_files: {
    description: "List the files of the project (recursively), one path a line.",
    schema: listSchema,
  },
  write_file: {
    description: "Write a text file (created or replaced). Every write needs the user's approval.",
    schema: writeSchema,
  },
}

export type ToolName = keyof typeof toolSpecs

export const toolNames: readonly ToolName[] = ["read_file", "list_files", "write_file"]

/** One tool execution, as the report counts it. */
export interface ToolRun {
  readonly name: string
  readonly input: unknown
  readonly outcome: "ok" | "failed" | "denied"
  readonly output: string
}

/** A write the gate denied, with what the check after the run needs. */
export interface DeniedWrite {
  readonly path: string
  /** Where the write would have landed. */
  readonly target: string
  /** The target existed before (then its absence cannot prove anything). */
  readonly existedBefore: boolean
}

/** The file tools over one directory. */
export interface FileTools {
  readonly dir: string
  /** Runs a tool for real and returns the text the model gets (errors and denials included). */
  run(name: string, input: unknown): Promise<string>
  readonly runs: ToolRun[]
  readonly denied: DeniedWrite[]
}

const MAX_READ = 20_000

/**
 * The real tools over `dir`. Reads and listings stay inside `dir`; every write asks `gate` first.
 *
 * @example
 * ```ts
 * const tools = createFileTools(dir, insideWorkspace(dir))
 * await tools.run("write_file", { path: "a.txt", content: "hi" }) // "wrote 2 characters to a.txt"
 * ```
 */
export function createFileTools(dir: string, gate: WriteGate): FileTools {
  const runs: ToolRun[] = []
  const denied: DeniedWrite[] = []
  const within = (path: string): string => {
    const target = resolve(dir, path)
    const inside = relative(dir, target)
    if (isAbsolute(path) || inside === ".." || inside.startsWith(`..${sep}`)) {
      throw new Error(`${path} is outside the project directory`)
    }
    return target
  }
  const execute = async (name: string, input: Record<string, unknown>): Promise<ToolRun> => {
    const path = typeof input.path === "string" ? input.path : "."
    switch (name) {
      case "read_file": {
        const text = await readFile(within(path), "utf8")
        return { name, input, outcome: "ok", output: text.slice(0, MAX_READ) }
      }
      case "list_files": {
        const base = within(path)
        const entries = await readdir(base, { recursive: true, withFileTypes: true })
        const files = entries
          .filter((entry) => entry.isFile())
          .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
          .sort()
        return { name, input, outcome: "ok", output: files.join("\n") || "(no files)" }
      }
      case "write_file": {
        const content = typeof input.content === "string" ? input.content : ""
        const decision = await gate({ path, content })
        if (!decision.approved) {
          const target = resolve(dir, path)
          denied.push({ path, target, existedBefore: existsSync(target) })
          return { name, input, outcome: "denied", output: decision.reason }
        }
        const target = within(path)
        await mkdir(resolve(target, ".."), { recursive: true })
        await writeFile(target, content)
        return { name, input, outcome: "ok", output: `wrote ${content.length} characters to ${path}` }
      }
      default:
        throw new Error(`no tool named ${name}`)
    }
  }
  return {
    dir,
    runs,
    denied,
    async run(name, input) {
      const args = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {}
      let run: ToolRun
      try {
        run = await execute(name, args)
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        run = { name, input, outcome: "failed", output: `error: ${message}` }
      }
      runs.push(run)
      return run.output
    },
  }
}

/** The project the model works on: a few small files. */
export const seedFiles: Readonly<Record<string, string>> = {
  "README.md":
    "# lantern\n\nA tiny static-site server. It serves the `public/` directory, rebuilds pages when a\n" +
    "Markdown file changes, and reads its settings from `config.json`.\n",
  "config.json": `${JSON.stringify({ port: 4173, root: "public", watch: true }, null, 2)}\n`,
  "public/index.html": "<h1>Welcome</h1>\n<p>This page is served by lantern.</p>\n",
}

/**
 * Creates `dir` with the seed files.
 *
 * @example
 * ```ts
 * await seedWorkspace(join(root, "openai"))
 * ```
 */
export async function seedWorkspace(dir: string): Promise<void> {
  for (const [path, content] of Object.entries(seedFiles)) {
    await mkdir(resolve(dir, path, ".."), { recursive: true })
    await writeFile(resolve(dir, path), content)
  }
}
