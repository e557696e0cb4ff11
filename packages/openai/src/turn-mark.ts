/**
 * The tool-call ids of recovered responses, and the recoveries the turn had made when each was
 * returned: the turn mark of the openai adapter. The `openai` client's helpers rebuild every
 * message they send back (`runTools` copies only the request fields of an assistant message),
 * so neither metadata nor object identity survives a step, but the call ids do: the next
 * request of the turn carries them in the assistant message's `tool_calls` and in the `tool`
 * answers (Responses: `function_call` / `function_call_output` items). The wrapper remembers the
 * ids it returned after a recovery and reads them back from the history (`turnRecoveries` of
 * `@tool-rescue/recovery`); nothing else is kept between requests. Bounded: the oldest ids are
 * forgotten first, long after their turn ended.
 *
 * Some servers number call ids per response (Kimi K2 through vLLM: `functions.bash:0` in every
 * response), so an id alone could match a call of an earlier turn: each mark also keeps the turn
 * it belongs to, a hash of the user message that started it ({@link turnKey}), and counts only in
 * that turn (or in a request that carries no user message, such as a Responses continuation by
 * `previous_response_id` with only tool outputs).
 */
export interface RecoveredCalls {
  /** Remembers that call `id` came from a response of `turn` after `recoveries` recoveries. */
  mark(id: string, recoveries: number, turn: TurnKey): void
  /** The recoveries recorded for call `id` in `turn` (0 for a call no recovered response made). */
  recoveries(id: unknown, turn: TurnKey): number
}

/** The turn a request belongs to: a hash of its last user message, or `undefined` when it has none. */
export type TurnKey = number | undefined

/** Ids remembered at most (a turn needs a handful; thousands of concurrent turns stay covered). */
const CAPACITY = 4096

interface Mark {
  readonly recoveries: number
  readonly turn: TurnKey
}

/** Creates an empty {@link RecoveredCalls}. */
export function createRecoveredCalls(capacity: number = CAPACITY): RecoveredCalls {
  const marks = new Map<string, Mark>()
  return {
    mark(id, recoveries, turn) {
      marks.delete(id)
      marks.set(id, { recoveries, turn })
      if (marks.size > capacity) marks.delete(marks.keys().next().value as string)
    },
    recoveries(id, turn) {
      const mark = typeof id === "string" ? marks.get(id) : undefined
      if (mark === undefined) return 0
      return turn === undefined || mark.turn === undefined || mark.turn === turn ? mark.recoveries : 0
    },
  }
}

/**
 * The key of the turn a user message starts: a 32-bit FNV-1a hash of its content (a string or a
 * list of parts), `undefined` for no message.
 */
export function turnKey(message: unknown): TurnKey {
  if (message === undefined) return undefined
  const content =
    typeof message === "object" && message !== null ? (message as { content?: unknown }).content : message
  const text = typeof content === "string" ? content : (JSON.stringify(content) ?? "")
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}
