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
 */
export interface RecoveredCalls {
  /** Remembers that call `id` came from a response of a turn that had made `recoveries` recoveries. */
  mark(id: string, recoveries: number): void
  /** The recoveries recorded for call `id` (0 for a call of a response that was not recovered). */
  recoveries(id: unknown): number
}

/** Ids remembered at most (a turn needs a handful; thousands of concurrent turns stay covered). */
const CAPACITY = 4096

/** Creates an empty {@link RecoveredCalls}. */
export function createRecoveredCalls(capacity: number = CAPACITY): RecoveredCalls {
  const marks = new Map<string, number>()
  return {
    mark(id, recoveries) {
      marks.delete(id)
      marks.set(id, recoveries)
      if (marks.size > capacity) marks.delete(marks.keys().next().value as string)
    },
    recoveries: (id) => (typeof id === "string" ? (marks.get(id) ?? 0) : 0),
  }
}
