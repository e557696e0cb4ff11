/**
 * A stateful Responses upstream (`store: true`, continued by `previous_response_id`) as a replay
 * script: it stores each response it answers with the call ids it issued, and answers 400, as
 * OpenAI does, a continuation from a response it never stored or a call id no response of the
 * chain issued.
 */
import type { ReplayRequest, ReplayScript, ReplayStep } from "@tool-rescue/testing"

interface Stored {
  readonly parent: string | undefined
  readonly callIds: readonly string[]
}

export interface StatefulUpstream {
  readonly script: ReplayScript
  /** The response ids of the chain that ends at `id`, oldest first. */
  chain(id: string): string[]
}

const reject = (message: string): ReplayStep => ({
  httpError: { status: 400, message, type: "invalid_request_error", param: "input" },
})

/** `steps[turn]` answers request `turn` once the request passed the upstream's id checks. */
export function statefulUpstream(steps: readonly ReplayStep[]): StatefulUpstream {
  const stored = new Map<string, Stored>()
  const issued = (id: string | undefined): Set<string> => {
    const ids = new Set<string>()
    for (let at = id; at !== undefined; at = stored.get(at)?.parent)
      for (const call of stored.get(at)?.callIds ?? []) ids.add(call)
    return ids
  }
  const script = (request: ReplayRequest, turn: number): ReplayStep | undefined => {
    const body = request.body ?? {}
    const previous = typeof body.previous_response_id === "string" ? body.previous_response_id : undefined
    if (previous !== undefined && !stored.has(previous))
      return reject(`Previous response with id '${previous}' not found.`)
    const known = issued(previous)
    const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : []
    // Calls the request itself carries are known too (a full history instead of a chain).
    for (const item of input) if (item.type === "function_call") known.add(String(item.call_id))
    for (const item of input)
      if (item.type === "function_call_output" && !known.has(String(item.call_id)))
        return reject(`No tool call found for function call output with call_id ${String(item.call_id)}.`)
    const step = steps[turn]
    if (step === undefined) return undefined
    if (body.store === true) {
      // The replay server's call ids when the step names none (`call_<turn>_<index>`).
      const calls = "toolCalls" in step ? (step.toolCalls ?? []) : []
      const callIds = calls.map((call, index) => call.id ?? `call_${turn}_${index}`)
      // The replay server's response id of request `turn` (`resp_replay_<turn>`).
      stored.set(`resp_replay_${turn}`, { parent: previous, callIds })
    }
    return step
  }
  return {
    script,
    chain(id) {
      const ids: string[] = []
      for (let at: string | undefined = id; at !== undefined; at = stored.get(at)?.parent) ids.unshift(at)
      return ids
    },
  }
}
