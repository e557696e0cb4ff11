/**
 * One log line per turn that did anything worth knowing: a recovered leak, a leak that ended the
 * turn (repeated, truncated), markup naming a tool that was not offered, a failed-log write that
 * stopped the retry, an upstream error, a client that went away. The line names the model,
 * protocol, route, format, offered tools, rounds and the turn's milliseconds — never what the
 * model or the user wrote, nor a header.
 */
import { isToolCallRecoveryError, type RecoveryEvent } from "@tool-rescue/recovery"
import { recoveryOutcome } from "@tool-rescue/recovery/adapter"
import type { Protocol } from "./protocol.ts"
import type { ProxyLogger } from "./proxy-logger.ts"
import { UpstreamFailure } from "./upstream-failure.ts"

/**
 * What a turn's line says happened (`outcome` in the line): recovery's own outcomes of a leak,
 * and the turn's other endings worth a line.
 */
export type TurnLogOutcome =
  | "recovered"
  | "repeated"
  | "truncated"
  | "not-offered"
  | "persist-failed"
  | "upstream-error"
  | "client-gone"

type Level = "info" | "warn" | "error"

/** The line each outcome is: its level and message. */
const LINES: Readonly<Record<TurnLogOutcome, { readonly level: Level; readonly message: string }>> = {
  recovered: { level: "info", message: "recovered a tool call written as text" },
  repeated: { level: "warn", message: "tool call written as text again: turn ended (repeated-markup)" },
  truncated: { level: "warn", message: "tool call cut off by the output limit: turn ended (truncated-call)" },
  "not-offered": { level: "info", message: "withheld markup naming a tool that was not offered" },
  "persist-failed": {
    level: "error",
    message: "the failed log could not be written: no retry (persist-failed)",
  },
  "upstream-error": { level: "warn", message: "upstream error" },
  "client-gone": { level: "info", message: "client went away before the response was done" },
}

/** A recovered request's line, written once (the first ending wins). */
export class TurnLog {
  private readonly logger: ProxyLogger
  private readonly protocol: Protocol
  private readonly model: string | undefined
  private readonly tools: readonly string[]
  private readonly arrived: number
  private format: string | undefined
  private rounds = 1
  /** The format of markup naming no offered tool, until the attempt's decision is known. */
  private notOffered: string | undefined
  private written = false

  constructor(
    logger: ProxyLogger,
    protocol: Protocol,
    model: string | undefined,
    tools: readonly string[],
    arrived: number,
  ) {
    this.logger = logger
    this.protocol = protocol
    this.model = model
    this.tools = tools
    this.arrived = arrived
  }

  /** The turn's recovery events (the proxy's `onEvent`). */
  event(event: RecoveryEvent): void {
    switch (event.type) {
      case "markup-detected":
        this.rounds = event.round + 1
        if (event.reason === "recoverable" || event.reason === "unknown-tool")
          this.format ??= event.markup.format
        else if (event.reason === "not-offered" && this.notOffered === undefined) {
          this.notOffered = event.markup.format
          // The attempt's markup is judged at once, then its retry is decided, all synchronously:
          // by the next microtask a retry started (its own line will come) or the turn ended here.
          queueMicrotask(() => {
            if (this.format === undefined && this.notOffered !== undefined)
              this.write("not-offered", { format: this.notOffered })
          })
        }
        return
      case "recovery-started":
        this.format ??= event.markup[0]?.format ?? "none"
        return
      case "recovery-succeeded":
      case "recovery-failed": {
        this.rounds = event.round + 1
        const outcome = recoveryOutcome(event)
        switch (outcome) {
          case "recovered":
          case "repeated":
          case "truncated":
          case "persist-failed":
            this.write(outcome)
            return
          case "aborted":
          case "cancelled":
            this.write("client-gone")
            return
          default:
            this.upstreamError(event.type === "recovery-failed" ? event.error : undefined)
        }
        return
      }
      default:
        return
    }
  }

  /** The upstream failed (unreachable, timed out, cut, an error status or event). */
  upstreamError(error: unknown, status?: number): void {
    // The proxy's own recovery errors have their line from their event.
    if (isToolCallRecoveryError(error)) return
    const failure = UpstreamFailure.isInstance(error) ? error : undefined
    const code = status ?? failure?.response?.status
    this.write("upstream-error", {
      kind: failure?.kind ?? (status === undefined ? "error" : "status"),
      ...(code === undefined ? {} : { status: code }),
    })
  }

  clientGone(): void {
    this.write("client-gone")
  }

  private write(outcome: TurnLogOutcome, extra: Readonly<Record<string, unknown>> = {}): void {
    if (this.written) return
    this.written = true
    const { level, message } = LINES[outcome]
    this.logger[level](
      {
        outcome,
        model: this.model ?? null,
        protocol: this.protocol.name,
        route: this.protocol.route,
        format: this.format ?? null,
        tools: this.tools,
        rounds: this.rounds,
        ms: Math.round(performance.now() - this.arrived),
        ...extra,
      },
      message,
    )
  }
}
