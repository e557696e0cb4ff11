import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const packageDir = fileURLToPath(new URL("../..", import.meta.url))

/** What a script run by {@link runNode} printed, and how it exited. */
export interface NodeRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs `script` (an ES module's text) in a fresh Node process from the package's directory, with
 * the workspace's source condition and `flags` before it (`--expose-gc`, …).
 */
export function runNode(script: string, flags: readonly string[] = []): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...flags, "--conditions=@tool-rescue/source", "--input-type=module", "--eval", script],
      { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] },
    )
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", reject)
    child.on("close", (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    )
  })
}
