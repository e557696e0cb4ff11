/** A streamed chat tool call, put together from its deltas. */
export interface ToolCallDraft {
  readonly id: string
  name: string
  /** Argument fragments, in order: join them once the stream has ended. */
  readonly args: string[]
}

/** One `tool_calls[]` entry of a chat completion chunk's `delta`. */
export interface ToolCallDelta {
  readonly index: number
  readonly id?: string | undefined
  readonly function?:
    | { readonly name?: string | undefined; readonly arguments?: string | undefined }
    | undefined
}

/**
 * Adds one streamed tool-call delta to the calls of a response, keyed by `index`: the first delta
 * of an index opens its call (with its `id`, else `call_<index>`), and every delta appends its
 * name and argument fragments.
 *
 * @example
 * ```ts
 * const calls = new Map<number, ToolCallDraft>()
 * addToolCallDelta(calls, { index: 0, id: "c1", function: { name: "read_file", arguments: '{"pa' } })
 * addToolCallDelta(calls, { index: 0, function: { arguments: 'th":"a.ts"}' } })
 * calls.get(0)?.args.join("") // '{"path":"a.ts"}'
 * ```
 */
export function addToolCallDelta(calls: Map<number, ToolCallDraft>, delta: ToolCallDelta): void {
  let call = calls.get(delta.index)
  if (call === undefined) {
    call = { id: delta.id ?? `call_${delta.index}`, name: "", args: [] }
    calls.set(delta.index, call)
  }
  if (delta.function?.name) call.name += delta.function.name
  if (delta.function?.arguments) call.args.push(delta.function.arguments)
}
