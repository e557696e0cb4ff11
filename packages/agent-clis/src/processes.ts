/** Installing the CLIs into a scratch prefix, and running them (and the programs beside them). */
import { type ChildProcess, execFileSync, type StdioOptions, spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentCli } from "./agent-clis.ts"

/**
 * Where the CLIs are installed: `TOOL_RESCUE_AGENTS_PREFIX`, or one directory under the system's
 * temporary directory that later runs reuse (the CLIs weigh 235–424 MB each).
 *
 * @example
 * ```ts
 * const prefix = agentsPrefix() // "/tmp/tool-rescue-agents"
 * ```
 */
export function agentsPrefix(): string {
  return process.env.TOOL_RESCUE_AGENTS_PREFIX ?? join(tmpdir(), "tool-rescue-agents")
}

/**
 * The CLI is installed in `prefix` (its packages are there), so a run needs no registry.
 *
 * @example
 * ```ts
 * if (!isInstalled(agentCli("opencode"), agentsPrefix())) console.log("opt-in test skipped")
 * ```
 */
export function isInstalled(agent: AgentCli, prefix: string): boolean {
  return [agent.npm, ...(agent.alsoNpm ?? [])].every((name) =>
    existsSync(join(prefix, "node_modules", name, "package.json")),
  )
}

/**
 * Installs the CLI's packages into `prefix` from the npm registry unless they are there already;
 * returns its binary and the version of its package.
 *
 * @example
 * ```ts
 * const { bin, version } = installAgentCli(agentCli("opencode"), agentsPrefix())
 * ```
 */
export function installAgentCli(agent: AgentCli, prefix: string): { bin: string; version: string } {
  if (!isInstalled(agent, prefix)) {
    const packages = [agent.npm, ...(agent.alsoNpm ?? [])]
    console.error(`installing ${packages.join(", ")} into ${prefix} …`)
    // stdout too goes to stderr: a command's stdout is its report.
    execFileSync("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", ...packages], {
      stdio: ["ignore", 2, 2],
    })
  }
  const manifest = JSON.parse(readFileSync(join(prefix, "node_modules", agent.npm, "package.json"), "utf8"))
  return { bin: join(prefix, "node_modules/.bin", agent.bin), version: String(manifest.version) }
}

/** How a program ended: its exit code (`null`: killed), or the error it could not start with. */
export interface ProgramEnd {
  readonly code: number | null
  readonly error?: Error
}

/**
 * Spawns `bin` with only `PATH` and `env` in its environment; `ended` settles when it exits or
 * cannot start. The one place that listens for `error`: a binary that cannot start (gone from the
 * prefix, not executable) emits `error` and no `close`, so without the listener a wait on `close`
 * would never end and the unhandled error would end the process.
 */
function startProgram(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: { readonly cwd?: string; readonly stdio: StdioOptions },
): { readonly child: ChildProcess; readonly ended: Promise<ProgramEnd> } {
  const child = spawn(bin, args, { ...options, env: { PATH: process.env.PATH ?? "", ...env } })
  const ended = new Promise<ProgramEnd>((resolve) => {
    child.once("error", (error) => resolve({ code: null, error }))
    child.once("close", (code) => resolve({ code }))
  })
  return { child, ended }
}

/** What a CLI run printed, and how it exited (`null`: killed). */
export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a CLI to its end with stdin closed (Codex and opencode wait on an open stdin forever) and
 * only `PATH` and `env` in its environment; kills it after `timeoutMs` (default 180 s), or when
 * `signal` aborts. A CLI that cannot start ends with code `null` and the reason in `stderr`.
 *
 * @example
 * ```ts
 * const { args, env } = agent.command(run)
 * const result = await runCli(bin, args, env, run.cwd)
 * ```
 */
export function runCli(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd: string,
  options: { readonly timeoutMs?: number; readonly signal?: AbortSignal } = {},
): Promise<CliResult> {
  const { child, ended } = startProgram(bin, args, env, { cwd, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
  const kill = () => child.kill("SIGKILL")
  const timer = setTimeout(kill, options.timeoutMs ?? 180_000)
  options.signal?.addEventListener("abort", kill, { once: true })
  return ended.then(({ code, error }) => {
    clearTimeout(timer)
    options.signal?.removeEventListener("abort", kill)
    return { code, stdout, stderr: error === undefined ? stderr : `${stderr}${error.message}\n` }
  })
}

/** A background program: `stop()` ends it; `ended` settles when it exits or cannot start. */
export interface BackgroundProgram {
  readonly ended: Promise<ProgramEnd>
  stop(): void
}

/**
 * A background program with no output kept (stopped by the caller). One that cannot start ends
 * with the error in `ended` (pass it to {@link answering} to hear of it at once).
 *
 * @example
 * ```ts
 * const router = spawnQuiet(join(prefix, "node_modules/.bin/ccr"), ["start"], env)
 * await answering(url, router.ended)
 * router.stop()
 * ```
 */
export function spawnQuiet(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): BackgroundProgram {
  const { child, ended } = startProgram(bin, args, env, { stdio: "ignore" })
  return { ended, stop: () => child.kill() }
}

/** A free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/**
 * Waits until `url` answers (any status), or fails after about 30 s — at once when `ended` (the
 * program that should answer, from {@link spawnQuiet}) settles first.
 *
 * @example
 * ```ts
 * await answering("http://127.0.0.1:3456", router.ended)
 * ```
 */
export async function answering(url: string, ended?: Promise<ProgramEnd>): Promise<void> {
  let gone: ProgramEnd | undefined
  void ended?.then((end) => {
    gone = end
  })
  for (let i = 0; i < 300; i++) {
    try {
      const response = await fetch(url)
      // Only the status matters: an unread body holds its socket until it is garbage-collected.
      await response.body?.cancel()
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    if (gone !== undefined) throw new Error(`${url} never answered: its program ${describeEnd(gone)}`)
  }
  throw new Error(`${url} never answered`)
}

function describeEnd({ code, error }: ProgramEnd): string {
  return error === undefined ? `exited ${code ?? "(killed)"}` : `could not start: ${error.message}`
}
