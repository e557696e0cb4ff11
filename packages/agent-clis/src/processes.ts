/** Installing the CLIs into a scratch prefix, and running them (and the programs beside them). */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
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
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      cwd,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const kill = () => child.kill("SIGKILL")
    const timer = setTimeout(kill, options.timeoutMs ?? 180_000)
    options.signal?.addEventListener("abort", kill, { once: true })
    const done = (code: number | null, error?: Error) => {
      clearTimeout(timer)
      options.signal?.removeEventListener("abort", kill)
      resolve({ code, stdout, stderr: error === undefined ? stderr : `${stderr}${error.message}\n` })
    }
    // A binary that cannot start (gone from the prefix, not executable) emits `error` and no
    // `close`: without this the run would wait forever and the error would end the process.
    child.once("error", (error) => done(null, error))
    child.on("close", (code) => done(code))
  })
}

/** A background program with no output kept (stopped by the caller). */
export function spawnQuiet(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): ChildProcess {
  return spawn(bin, args, { env: { PATH: process.env.PATH ?? "", ...env }, stdio: "ignore" })
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

/** Waits until `url` answers (any status), or fails after about 30 s. */
export async function answering(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await fetch(url)
      return
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(`${url} never answered`)
}
