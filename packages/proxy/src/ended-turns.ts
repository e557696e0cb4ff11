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

/** A memory of ended turns, keyed by {@link turnKey}, with each turn's {@link turnShape}. */
export class EndedTurns {
  private readonly entries = new Map<
    string,
    { readonly turn: EndedTurn; readonly until: number; readonly shape: string }
  >()
  /** The shapes of the turns remembered, and how many turns each. */
  private readonly shapes = new Map<string, number>()
  private readonly maxEntries: number
  private readonly ttlMs: number
  private readonly now: () => number

  constructor({ maxEntries = 1024, ttlMs = 60_000, now = Date.now }: EndedTurnsLimits = {}) {
    this.maxEntries = maxEntries
    this.ttlMs = ttlMs
    this.now = now
  }

  /**
   * Nothing remembered (turns whose time is up forgotten first): a request need not look
   * further (the hot path of every turn). Without the sweep, one failed turn made every later
   * request of the proxy's life compute its key before going upstream.
   */
  get empty(): boolean {
    this.sweep(this.now())
    return this.entries.size === 0
  }

  get size(): number {
    return this.entries.size
  }

  /**
   * Whether a turn of `shape` may be remembered: only then is the request's key (a SHA-256 of its
   * conversation, computed off the thread) worth computing before it goes upstream.
   */
  mayHold(shape: string): boolean {
    return this.shapes.has(shape)
  }

  /** The turn `key` ended as, while it is remembered. */
  get(key: string): EndedTurn | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until <= this.now()) {
      this.forget(key)
      return undefined
    }
    return entry.turn
  }

  /**
   * Remembers how the turn `key` (of `shape`, its {@link turnShape}) ended (the newest, so the
   * last to be forgotten). `shape` is required: a turn remembered under any other shape than its
   * requests' is one {@link mayHold} never matches, so its resends would escape the bound.
   * A turn still remembered is a resend's: its retries add to those remembered (`turn.recoveries`
   * counts only the resend's own), so every resend spends from one budget. Otherwise, with
   * `maxRecoveries` 2 and a retry that fails upstream or a client that leaves during it, each
   * resend would get one more retry, without end.
   */
  set(key: string, turn: EndedTurn, shape: string): void {
    const now = this.now()
    const before = this.get(key)
    this.forget(key)
    const spent = before === undefined ? turn : { ...turn, recoveries: before.recoveries + turn.recoveries }
    this.entries.set(key, { turn: spent, until: now + this.ttlMs, shape })
    this.shapes.set(shape, (this.shapes.get(shape) ?? 0) + 1)
    this.sweep(now)
  }

  /** Forgets the oldest turns while there are too many or their time is up. */
  private sweep(now: number): void {
    // Map order is insertion order: the first entries are the oldest.
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && entry.until > now) break
      this.forget(oldest)
    }
  }

  /** Forgets the turn `key`: it ended with an answer, so an identical request is a new turn. */
  delete(key: string): void {
    this.forget(key)
  }

  private forget(key: string): void {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.entries.delete(key)
    const count = this.shapes.get(entry.shape) ?? 1
    if (count > 1) this.shapes.set(entry.shape, count - 1)
    else this.shapes.delete(entry.shape)
  }
}

/**
 * The size of a conversation field, to a few characters: a string's length, an object's
 * characters in its string values (one for any other value), an array's length and the size of
 * its last item (the newest message). Bounded work: an array is followed into its last item only.
 */
function sizeOf(value: unknown): string {
  let shape = ""
  let item = value
  for (let depth = 0; depth < 8 && Array.isArray(item); depth++) {
    shape += `a${item.length}.`
    item = item.at(-1)
  }
  if (typeof item === "string") return `${shape}s${item.length}`
  if (typeof item !== "object" || item === null) return `${shape}${String(item)}`
  let characters = 0
  for (const field of Object.values(item)) characters += typeof field === "string" ? field.length : 1
  return `${shape}o${characters}`
}

/**
 * The cheap part of a turn's identity, computed for every recovered request (a few lengths, no
 * hashing): the protocol and the sizes of its conversation fields. A resend repeats its
 * conversation, so it has the shape of the turn it resends; the next request of an agent's turn
 * (one message more) has another. Only a request whose shape is remembered computes its
 * {@link turnKey}.
 */
export function turnShape(protocol: Protocol, body: JsonObject): string {
  let shape = protocol.name
  for (const field of protocol.wire.conversation) shape += `|${sizeOf(body[field])}`
  return shape
}

const encoder = new TextEncoder()

/**
 * The key of a request's turn: a SHA-256 of the protocol, the client's credentials (so clients of
 * a shared proxy never meet each other's turns) and the request's conversation fields (the
 * protocol's `conversation`: what a resend repeats, whether or not it streams). Objects are
 * read in key order, so a client that rebuilds its request with its keys in another order resends
 * the same turn.
 */
export async function turnKey(
  protocol: Protocol,
  body: JsonObject,
  credentials: string | undefined,
): Promise<string> {
  const parts: unknown[] = [protocol.name, credentials ?? null]
  for (const field of protocol.wire.conversation) parts.push(body[field] ?? null)
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(parts, sortedKeys)))
  let hex = ""
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0")
  return hex
}

/** A `JSON.stringify` replacer that writes each object's keys sorted (arrays keep their order). */
function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key]
  return sorted
}
