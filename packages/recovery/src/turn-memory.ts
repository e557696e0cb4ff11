/**
 * A short memory of the turns that ended without an answer: what keeps the bound (`maxRecoveries
 * + 1` requests per user turn) against a client that runs a failed call again. The frameworks'
 * own retries do that whatever our error says: LangChain's `.withRetry()` retries every error,
 * Effect's `Effect.retry({ times })` every failure; a user's retry loop the same. Each re-run
 * would be a fresh first request with a fresh budget. A re-run of a turn this memory holds gets
 * the error the turn ended with, with no request, or the budget it already spent (the proxy's
 * `ended-turns.ts` is this memory too, for resent HTTP requests, with a shape per turn: see
 * {@link TurnMemory.mayHold}).
 *
 * A re-run repeats its request, so the turn is keyed by the request's content ({@link turnKey}):
 * the messages and the tools. One memory per wrapped model (not global): two apps in one process
 * never meet each other's turns. Bounded in entries and in time: a re-run comes within seconds; a
 * user who asks again later gets a fresh turn. A turn that ends with an answer is forgotten, so an
 * identical request after it is a new turn.
 */

import { isToolCallRecoveryError } from "./tool-call-recovery-error.ts"
import type { OutputPart } from "./types.ts"

/**
 * How a remembered turn ended. `Failure` is the error's type: recovery's own error for the
 * adapters, the protocol's error response for the proxy.
 */
export interface RememberedTurn<Failure = unknown> {
  /** Retries the turn's runs started (spent, whether or not they were answered). */
  readonly spent: number
  /** The error recovery ended the turn with (`repeated-markup`, …): a re-run gets it again. */
  readonly error?: Failure | undefined
}

/** The memory's bounds. */
export interface TurnMemoryLimits {
  /** Turns remembered at most: the oldest is forgotten first. @defaultValue 256 */
  readonly maxEntries?: number
  /** Milliseconds a turn is remembered. @defaultValue 60000 */
  readonly ttlMs?: number
  /** The clock (tests). @defaultValue `Date.now` */
  readonly now?: () => number
}

/**
 * A memory of turns, by {@link turnKey}. See {@link createTurnMemory}.
 *
 * @example
 * ```ts
 * import { createTurnMemory } from "@tool-rescue/recovery/adapter"
 *
 * const memory = createTurnMemory()
 * memory.remember("k", { spent: 1 }, "chat|a1")
 * memory.recall("k") // { spent: 1 }
 * memory.mayHold("chat|a2") // false: a turn of that shape need not compute its key
 * ```
 */
export interface TurnMemory<Failure = unknown> {
  /** Nothing remembered (expired turns forgotten first): a call need not compute its key. */
  readonly empty: boolean
  /**
   * Whether a turn remembered with `shape` (see {@link TurnMemory.remember}) may be held: a
   * caller whose key is costly (the proxy's SHA-256 of a conversation) computes it only then.
   * Turns whose time is up count until the next {@link TurnMemory.empty} forgets them.
   */
  mayHold(shape: string): boolean
  /** How the turn `key` ended, while it is remembered. */
  recall(key: string): RememberedTurn<Failure> | undefined
  /**
   * Remembers how a run of the turn `key` ended (the newest turn, so the last to be forgotten).
   * A turn still remembered is a re-run's: its retries add to those remembered, so every run
   * spends from one budget. `shape` is a cheap part of the turn's identity that every re-run
   * shares (its key's inputs, summarised): {@link TurnMemory.mayHold} answers for it. A turn
   * remembered without one is never matched by `mayHold`.
   */
  remember(key: string, turn: RememberedTurn<Failure>, shape?: string): void
  /** Forgets the turn `key`: it ended with an answer. */
  forget(key: string): void
}

/**
 * A {@link TurnMemory}, bounded by `limits`.
 *
 * @example
 * ```ts
 * import { createTurnMemory } from "@tool-rescue/recovery/adapter"
 *
 * const memory = createTurnMemory({ maxEntries: 64, ttlMs: 30_000 })
 * ```
 */
export function createTurnMemory<Failure = unknown>({
  maxEntries = 256,
  ttlMs = 60_000,
  now = Date.now,
}: TurnMemoryLimits = {}): TurnMemory<Failure> {
  // Map order is insertion order: the first entries are the oldest (remember re-inserts), and,
  // every entry living `ttlMs`, the first to expire.
  const entries = new Map<
    string,
    { readonly turn: RememberedTurn<Failure>; readonly until: number; readonly shape: string | undefined }
  >()
  /** The shapes of the turns remembered, and how many turns each. */
  const shapes = new Map<string, number>()
  // Every way out of `entries` (forget, expiry, the bound) goes through here: `shapes` stays exact.
  const drop = (key: string): void => {
    const entry = entries.get(key)
    if (entry === undefined) return
    entries.delete(key)
    if (entry.shape === undefined) return
    const count = shapes.get(entry.shape) ?? 1
    if (count > 1) shapes.set(entry.shape, count - 1)
    else shapes.delete(entry.shape)
  }
  const sweep = (time: number): void => {
    for (const [oldest, entry] of entries) {
      if (entries.size <= maxEntries && entry.until > time) break
      drop(oldest)
    }
  }
  const recall = (key: string): RememberedTurn<Failure> | undefined => {
    const entry = entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until <= now()) {
      drop(key)
      return undefined
    }
    return entry.turn
  }
  return {
    get empty() {
      sweep(now())
      return entries.size === 0
    },
    mayHold: (shape) => shapes.has(shape),
    recall,
    remember(key, turn, shape) {
      const before = recall(key)
      drop(key)
      const time = now()
      const spent = before === undefined ? turn : { ...turn, spent: before.spent + turn.spent }
      entries.set(key, { turn: spent, until: time + ttlMs, shape })
      if (shape !== undefined) shapes.set(shape, (shapes.get(shape) ?? 0) + 1)
      sweep(time)
    },
    forget: drop,
  }
}

/**
 * The key of a request's turn: a hash of `value` (what a re-run repeats: the messages and the
 * tools, as the adapter reads them) written as JSON with each object's keys sorted, so a re-run
 * that rebuilds its objects with their keys in another order is the same turn. `undefined` when
 * `value` cannot be written as JSON (a cycle, a `BigInt`): that turn is not remembered.
 *
 * @example
 * ```ts
 * import { turnKey } from "@tool-rescue/recovery/adapter"
 *
 * turnKey({ a: 1, b: [2] }) === turnKey({ b: [2], a: 1 }) // true
 * ```
 */
export function turnKey(value: unknown): string | undefined {
  let json: string | undefined
  try {
    json = JSON.stringify(value, sortedKeys)
  } catch {
    return undefined
  }
  if (json === undefined) return undefined
  // Two 53-bit hashes of different seeds (cyrb53): a collision between two live turns of one
  // model is out of reach, and the memory never holds the conversation itself.
  return `${hash53(json, 0).toString(36)}.${hash53(json, 0x9e3779b9).toString(36)}.${json.length}`
}

/** cyrb53 (public domain, bryc): a fast 53-bit string hash, not cryptographic. */
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed
  let h2 = 0x41c6ce57 ^ seed
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/**
 * A `JSON.stringify` replacer that writes each object's keys sorted (arrays keep their order):
 * a turn's JSON is the same whatever order a re-run builds its objects' keys in. {@link turnKey}
 * and the proxy's SHA-256 key both write the turn with it.
 *
 * @example
 * ```ts
 * import { sortedKeys } from "@tool-rescue/recovery/adapter"
 *
 * JSON.stringify({ b: 1, a: [{ d: 2, c: 3 }] }, sortedKeys) // '{"a":[{"c":3,"d":2}],"b":1}'
 * ```
 */
export function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key]
  return sorted
}

/**
 * One run of a turn, as the memory sees it: what earlier runs of the same turn left, and how
 * this run's parts are recorded. See {@link recallTurn}.
 */
export interface RecalledTurn {
  /** Retries earlier runs of the turn spent: the run's `recoveriesBefore` adds them. */
  readonly spent: number
  /**
   * The error an earlier run ended with: the run fails with it and sends nothing (`undefined`
   * when there is none).
   */
  readonly error: unknown
  /**
   * `parts` (`runTurn`'s output), recorded as they go: a run that ends with recovery's error
   * (not an abort) is remembered with it; one that ends otherwise after a retry started (the
   * retry's provider error, a consumer that left) with the retries it spent; one that ends with
   * an answer is forgotten.
   */
  record<Raw>(
    parts: AsyncGenerator<OutputPart<Raw>, void, undefined>,
  ): AsyncGenerator<OutputPart<Raw>, void, undefined>
}

/**
 * Looks a run up in `memory`. `key` computes the run's {@link turnKey}, only when it is needed
 * (the memory holds something, or the run ends without an answer): a turn that goes well costs
 * no hashing while the memory is empty.
 *
 * @example
 * ```ts
 * import { createTurnMemory, recallTurn, turnKey } from "@tool-rescue/recovery/adapter"
 *
 * const memory = createTurnMemory()
 * const messages = [{ role: "user", content: "Read a.ts" }]
 * const recalled = recallTurn(memory, () => turnKey(messages))
 * if (recalled.error !== undefined) throw recalled.error
 * // plan with recoveriesBefore + recalled.spent, then: recalled.record(runTurn(plan, input))
 * ```
 */
export function recallTurn(memory: TurnMemory, key: () => string | undefined): RecalledTurn {
  let computed = false
  let value: string | undefined
  const keyOnce = (): string | undefined => {
    if (!computed) {
      computed = true
      value = key()
    }
    return value
  }
  let recalled: RememberedTurn | undefined
  if (!memory.empty) {
    const k = keyOnce()
    recalled = k === undefined ? undefined : memory.recall(k)
  }
  return {
    spent: recalled?.spent ?? 0,
    error: recalled?.error,
    record: (parts) => recorded(parts, memory, keyOnce, recalled !== undefined),
  }
}

async function* recorded<Raw>(
  parts: AsyncGenerator<OutputPart<Raw>, void, undefined>,
  memory: TurnMemory,
  key: () => string | undefined,
  remembered: boolean,
): AsyncGenerator<OutputPart<Raw>, void, undefined> {
  let spent = 0
  let ended = false
  const remember = (turn: RememberedTurn): void => {
    const k = key()
    if (k !== undefined) memory.remember(k, turn)
  }
  try {
    for await (const part of parts) {
      if (part.type === "attempt-start") spent = Math.max(spent, part.round)
      yield part
    }
    ended = true
    if (remembered) {
      const k = key()
      if (k !== undefined) memory.forget(k)
    }
  } catch (error) {
    ended = true
    if (isToolCallRecoveryError(error) && error.code !== "aborted") remember({ spent, error })
    else if (spent > 0) remember({ spent })
    throw error
  } finally {
    // The consumer left during a retry: what it spent stays spent.
    if (!ended && spent > 0) remember({ spent })
  }
}
