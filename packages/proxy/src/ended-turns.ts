/**
 * The proxy's short memory of the turns it ended: what keeps the bound (`maxRecoveries + 1`
 * upstream requests per user turn) against a client that resends a request the proxy failed.
 * Codex CLI reconnects after a stream it takes for dropped, Claude Code resends without streaming
 * when its router drops an error chunk: each resend would be a fresh turn with a fresh budget.
 *
 * One memory per proxy (each replica its own), bounded in entries and in time: a resend comes
 * within seconds; a user who asks again later gets a fresh turn.
 */
import {
  createTurnMemory,
  type RememberedTurn,
  sortedKeys,
  type TurnMemory,
  type TurnMemoryLimits,
} from "@tool-rescue/recovery/adapter"
import type { JsonObject, WireError } from "@tool-rescue/wire"
import type { Protocol } from "./protocol.ts"

/** The error recovery gave up with, as the proxy answered it: a resend gets it again, not the upstream. */
export interface EndedTurnError {
  readonly status: number
  readonly error: WireError
}

/** How a remembered turn ended: the retries it spent (the budget a resend has already spent), its error. */
export type EndedTurn = RememberedTurn<EndedTurnError>

/**
 * A memory of ended turns (recovery's {@link TurnMemory}), keyed by {@link turnKey}, with each
 * turn's {@link turnShape}: only a request whose shape it may hold computes its key.
 */
export interface EndedTurns extends Omit<TurnMemory<EndedTurnError>, "remember"> {
  /**
   * Remembers how the turn `key` (of `shape`, its {@link turnShape}) ended. `shape` is required
   * here: a turn remembered under any other shape than its requests' is one `mayHold` never
   * matches, so its resends would escape the bound. A resend's retries add to those its turn
   * spent: otherwise, with `maxRecoveries` 2 and a retry that fails upstream or a client that
   * leaves during it, each resend would get one more retry, without end.
   */
  remember(key: string, turn: EndedTurn, shape: string): void
}

/**
 * The proxy's {@link EndedTurns}: recovery's turn memory, 1024 turns (a proxy serves many
 * clients) for 60 seconds unless `limits` say otherwise.
 */
export function createEndedTurns({ maxEntries = 1024, ...limits }: TurnMemoryLimits = {}): EndedTurns {
  return createTurnMemory<EndedTurnError>({ maxEntries, ...limits })
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
