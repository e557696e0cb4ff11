/**
 * The proxy's turn mark: the tool-call ids of a recovered response carry the recoveries its turn
 * had made (`call_1-retry1`). A client sends those ids back in every later request of its
 * agent's turn (the assistant message's calls and the tool results that answer them), so the
 * next request reads its turn's budget from its own history and the proxy keeps no state between
 * requests — it can run as any number of replicas. The mark is the proxy's alone: it is taken off
 * every id of a request before the request goes upstream ({@link unmarkId}), so a stateful
 * upstream (Responses `store: true`, continued by `previous_response_id`) sees only the ids it
 * issued.
 */
import { retryId } from "@tool-rescue/recovery/adapter"

const MARK = /-retry(\d+)$/

/**
 * The id of a call in a recovered response: `retryId(id, recoveries)` of `@tool-rescue/recovery/adapter`
 * (`call_1` → `call_1-retry1`), the turn's recoveries so far. An id already marked is left alone.
 */
export function markId(id: unknown, recoveries: number): unknown {
  return typeof id === "string" && recoveries > 0 && !MARK.test(id) ? retryId(id, recoveries) : id
}

/** The recoveries a tool-call id was marked with (0 for an unmarked id). */
export function callMark(id: unknown): number {
  if (typeof id !== "string") return 0
  const found = MARK.exec(id)
  return found === null ? 0 : Number(found[1])
}

/** The id as the upstream issued it: `call_1-retry1` → `call_1` (any other value as it is). */
export function unmarkId(id: unknown): unknown {
  if (typeof id !== "string") return id
  const found = MARK.exec(id)
  return found === null ? id : id.slice(0, found.index)
}
