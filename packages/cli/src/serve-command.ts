import { resolve } from "node:path"
import {
  type FailedLog,
  openFailedLog,
  type ProxyServerOptions,
  startProxyServer,
} from "@tool-rescue/proxy/node"
import type { Logger } from "pino"
import { choiceFlag, integerFlag, listFlag, type ParsedValues, parseCommandArgs, stringFlag } from "./args.ts"
import { CliError, ExitCode, usageError } from "./cli-error.ts"
import type { CliIo } from "./io.ts"
import { createServeLogger, LOG_LEVELS } from "./serve-logger.ts"
import { colorEnabled } from "./style.ts"
import { plural } from "./text.ts"
import { upstreamModels } from "./upstream-models.ts"

/** The flags a `TOOL_RESCUE_*` environment variable may set (a flag on the command line wins). */
const FROM_ENV: ReadonlyArray<readonly [flag: string, env: string]> = [
  ["upstream", "TOOL_RESCUE_UPSTREAM"],
  ["port", "TOOL_RESCUE_PORT"],
  ["host", "TOOL_RESCUE_HOST"],
  ["failed-log", "TOOL_RESCUE_FAILED_LOG"],
  ["log-level", "TOOL_RESCUE_LOG_LEVEL"],
  ["upstream-timeout", "TOOL_RESCUE_UPSTREAM_TIMEOUT"],
  ["upstream-idle-timeout", "TOOL_RESCUE_UPSTREAM_IDLE_TIMEOUT"],
  // The environment keeps the key out of `ps` and shell history.
  ["api-key", "TOOL_RESCUE_API_KEY"],
]

function withEnv(values: ParsedValues, env: CliIo["env"]): ParsedValues {
  const merged: ParsedValues = { ...values }
  for (const [flag, name] of FROM_ENV) {
    const value = env[name]
    if (merged[flag] === undefined && value !== undefined && value !== "") merged[flag] = value
  }
  return merged
}

function upstreamFlag(values: ParsedValues): string {
  const upstream = stringFlag(values, "upstream")
  if (upstream === undefined)
    throw usageError("--upstream is required (e.g. http://127.0.0.1:11434/v1, or set TOOL_RESCUE_UPSTREAM)")
  let url: URL
  try {
    url = new URL(upstream)
  } catch {
    throw usageError(`--upstream is not a URL: '${upstream}'`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw usageError(`--upstream must be http(s), got '${upstream}'`)
  try {
    // user:password@ goes upstream as Basic auth: decoded as the proxy decodes it.
    decodeURIComponent(url.username)
    decodeURIComponent(url.password)
  } catch {
    throw usageError("--upstream has a user:password that is not valid percent-encoding")
  }
  return upstream
}

/**
 * `tool-rescue serve --upstream URL [--port N] [--host H] [...]`: see `tool-rescue serve --help`.
 * Prints the base URL clients use, serves until SIGINT or SIGTERM (or `stop`), then closes
 * gracefully and returns 0. Bad flags or a port in use throw a `CliError` (exit code 2).
 *
 * @example
 * ```ts
 * import { processIo, runServe } from "@tool-rescue/cli"
 *
 * process.exitCode = await runServe(["--upstream", "http://127.0.0.1:11434/v1"], processIo())
 * ```
 */
export async function runServe(argv: readonly string[], io: CliIo, stop?: AbortSignal): Promise<number> {
  const parsed = parseCommandArgs(
    argv,
    {
      upstream: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      "failed-log": { type: "string" },
      "log-level": { type: "string" },
      "max-recoveries": { type: "string" },
      placement: { type: "string" },
      "max-body-mb": { type: "string" },
      "upstream-timeout": { type: "string" },
      "upstream-idle-timeout": { type: "string" },
      "request-idle-timeout": { type: "string" },
      grace: { type: "string" },
      "allowed-host": { type: "string", multiple: true },
      "api-key": { type: "string" },
    },
    0,
  )
  const values = withEnv(parsed.values, io.env)
  const upstream = upstreamFlag(values)
  const failedLogPath = stringFlag(values, "failed-log")
  const logLevel = choiceFlag(values, "log-level", LOG_LEVELS, "info")
  const logger = createServeLogger(io.stderr, logLevel, colorEnabled(io.stderr, io.env))
  const failedLog = failedLogPath === undefined ? undefined : await openLog(resolve(io.cwd, failedLogPath))
  const apiKey = stringFlag(values, "api-key")
  if (apiKey !== undefined && apiKey.trim() === "") throw usageError("--api-key must not be empty")
  const options: ProxyServerOptions = {
    upstream,
    port: integerFlag(values, "port", 8787, { min: 0, max: 65535 }),
    host: stringFlag(values, "host") ?? "127.0.0.1",
    maxRecoveries: integerFlag(values, "max-recoveries", 1, { min: 0, max: 10 }),
    instructionPlacement: choiceFlag(values, "placement", ["system", "user"] as const, "system"),
    maxBodyBytes: integerFlag(values, "max-body-mb", 32, { min: 1, max: 4096 }) * 1024 * 1024,
    upstreamTimeoutMs: integerFlag(values, "upstream-timeout", 300, { min: 1, max: 86_400 }) * 1000,
    upstreamIdleTimeoutMs: integerFlag(values, "upstream-idle-timeout", 300, { min: 1, max: 86_400 }) * 1000,
    requestIdleTimeoutMs: integerFlag(values, "request-idle-timeout", 30, { min: 1, max: 3600 }) * 1000,
    graceMs: integerFlag(values, "grace", 10, { min: 0, max: 3600 }) * 1000,
    allowedHosts: listFlag(values, "allowed-host"),
    ...(apiKey === undefined ? {} : { apiKey }),
    logger,
    ...(failedLog === undefined ? {} : { persistFailed: failedLog.persistFailed }),
  }
  let server: Awaited<ReturnType<typeof startProxyServer>>
  try {
    server = await startProxyServer(options)
  } catch (error) {
    await failedLog?.close()
    const code = (error as { code?: unknown }).code
    const reason =
      code === "EADDRINUSE" ? "the port is in use" : error instanceof Error ? error.message : String(error)
    throw new CliError(`cannot listen on ${options.host}:${options.port}: ${reason}`, ExitCode.error)
  }
  // Listening for the signals before the URL line: a supervisor (or a test) that stops the proxy
  // as soon as it reads that line must find the handler in place, not Node's default (an exit
  // by the signal, with no grace period).
  const stopped = new Promise<void>((resolve) => {
    const done = () => {
      process.off("SIGINT", done)
      process.off("SIGTERM", done)
      stop?.removeEventListener("abort", done)
      resolve()
    }
    process.once("SIGINT", done)
    process.once("SIGTERM", done)
    if (stop?.aborted === true) done()
    else stop?.addEventListener("abort", done, { once: true })
  })
  // The upstream is printed without its credentials, should the URL carry any.
  const shown = new URL(upstream)
  shown.username = ""
  shown.password = ""
  const upstreamShown = shown.href.replace(/\/$/, "")
  io.stdout.write(`tool-rescue proxy listening on ${server.url} → ${upstreamShown}\n`)
  logger.info(
    {
      url: server.url,
      upstream: upstreamShown,
      maxRecoveries: options.maxRecoveries,
      failedLog: failedLog?.path ?? null,
    },
    "tool-rescue proxy started",
  )
  if (!server.loopback) {
    logger.warn(
      { host: server.host, port: server.port, apiKey: apiKey !== undefined },
      apiKey === undefined
        ? `warning: listening on ${server.host}, reachable from other machines: anyone who can reach port ${server.port} uses the upstream (and any credentials the proxy adds) through it, with no key asked; set --api-key (or TOOL_RESCUE_API_KEY), or bind 127.0.0.1`
        : `warning: listening on ${server.host}, reachable from other machines: requests are served to clients that present the --api-key, over plain HTTP (put TLS in front of it on an untrusted network)`,
    )
  }
  // Said while serving, never awaited before: a server that comes up later is no error.
  const checked = sayUpstreamModels(logger, upstream, upstreamShown)

  await stopped
  logger.info({ graceMs: options.graceMs }, "stopping: in-flight requests get the grace period")
  await server.close()
  await checked
  await failedLog?.close()
  logger.info({}, "stopped")
  return ExitCode.ok
}

/** Opens the failed log at start: a path that cannot be opened stops the start (exit 2), named. */
async function openLog(path: string): Promise<FailedLog> {
  try {
    return await openFailedLog(path)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    const reason =
      code === "ENOENT"
        ? "its directory does not exist"
        : code === "EACCES" || code === "EPERM"
          ? "permission denied"
          : code === "EISDIR"
            ? "it is a directory"
            : error instanceof Error
              ? error.message
              : String(error)
    throw new CliError(`cannot open --failed-log '${path}': ${reason}`, ExitCode.error)
  }
}

/** Asks the upstream for its models and says the answer: reachable and what it serves, or why not. */
async function sayUpstreamModels(logger: Logger, upstream: string, shown: string): Promise<void> {
  const answer = await upstreamModels(upstream, { timeoutMs: 5000 })
  switch (answer.kind) {
    case "models":
      logger.info(
        {
          upstream: shown,
          models: answer.models.slice(0, 20).map((model) => model.id),
          count: answer.models.length,
        },
        `upstream reachable: ${plural(answer.models.length, "model")}`,
      )
      return
    case "status":
      logger.warn(
        { upstream: shown, status: answer.status },
        `upstream reachable, but GET /models answered HTTP ${answer.status}`,
      )
      return
    case "not-a-list":
      logger.warn({ upstream: shown }, "upstream reachable, but GET /models is not a model list")
      return
    case "unreachable":
      logger.warn(
        { upstream: shown, reason: answer.reason },
        `upstream not reachable: ${answer.reason}; requests will fail until it is`,
      )
      return
    default:
      answer satisfies never
  }
}
