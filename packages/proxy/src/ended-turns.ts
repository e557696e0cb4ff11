/**
 * The proxy's short memory of the turns it ended: what keeps the bound (`maxRecoveries + 1`
 * upstream requests per user turn) against a client that resends a request the proxy failed.
 * Codex CLI reconnects after a stream it takes for dropped, Claude Code resends without streaming
 * when its router drops an error chunk: each resend would be a fresh turn with a fresh budget.
 *
 * One memory per proxy (each replica its own), bounded in entries and in time: a resend comes
 * within seconds; a user who asks again later gets a fresh turn.
 */
import type { JsonObject, WireError } from "@tool-rescue/wire"
import type { Protocol } from "./protocol.ts"

/** How a remembered turn ended. */
export interface EndedTurn {
  /** Retries the turn made (the budget a resend has already spent). */
  readonly recoveries: number
  /** The error recovery gave up with (`repeated-markup`, …): a resend gets it again, not the upstream. */
  readonly error?: { readonly status: number; readonly error: WireError } | undefined
}

/** The memory's bounds. */
export interface EndedTurnsLimits {
  /** Turns remembered at most: the oldest is forgotten first. @defaultValue 1024 */
  readonly maxEntries?: number
  /** Milliseconds a turn is remembered. @defaultValue 60000 */
  readonly ttlMs?: number
  /** The clock (tests). @defaultValue `Date.now` */
  readonly now?: () => number
}

/** A memory of ended turns, keyed by {@link turnKey}. */
export class EndedTurns {
  private readonly entries = new Map<string, { readonly turn: EndedTurn; readonly until: number }>()
  private readonly maxEntries: number
  private readonly ttlMs: number
  private readonly now: () => number

  constructor({ maxEntries = 1024, ttlMs = 60_000, now = Date.now }: EndedTurnsLimits = {}) {
    this.maxEntries = maxEntries
    this.ttlMs = ttlMs
    this.now = now
  }

  /** Nothing remembered: a request need not compute its key (the hot path of every turn). */
  get empty(): boolean {
    return this.entries.size === 0
  }

  get size(): number {
    return this.entries.size
  }

  /** The turn `key` ended as, while it is remembered. */
  get(key: string): EndedTurn | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until <= this.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry.turn
  }

  /** Remembers how the turn `key` ended (the newest, so the last to be forgotten). */
  set(key: string, turn: EndedTurn): void {
    const now = this.now()
    this.entries.delete(key)
    this.entries.set(key, { turn, until: now + this.ttlMs })
    // Map order is insertion order: the first entries are the oldest.
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && entry.until > now) break
      this.entries.delete(oldest)
    }
  }
}

const encoder = new TextEncoder()

/**
 * The key of a request's turn: a SHA-256 of the protocol, the client's credentials (so clients of
 * a shared proxy never meet each other's turns) and the request's conversation fields (the
 * protocol's `conversation`: what a resend repeats, whether or not it streams).
 */
export async function turnKey(
  protocol: Protocol,
  body: JsonObject,
  credentials: string | undefined,
): Promise<string> {
  const parts: unknown[] = [protocol.name, credentials ?? null]
  for (const field of protocol.wire.conversation) parts.push(body[field] ?? null)
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(parts)))
  let hex = ""
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0")
  return hex
}
