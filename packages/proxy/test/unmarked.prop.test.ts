import { fc, it } from "@fast-check/vitest"
import { afterAll, beforeAll, describe, expect } from "vitest"
import type { ProtocolName } from "../src/index.ts"
import { type Harness, READ_FILE_TOOL, startHarness } from "./support/harness.ts"

let h: Harness
beforeAll(async () => {
  h = await startHarness(() => ({ content: "ok" }))
})
afterAll(() => h.close())

/** A call id as an upstream issues it, and the proxy's mark on it (0: none). */
const callId = fc.record({
  id: fc.stringMatching(/^[A-Za-z0-9_:.]{1,12}$/),
  mark: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
})
type CallId = { readonly id: string; readonly mark: number }
const spelled = ({ id, mark }: CallId): string => (mark === 0 ? id : `${id}-retry${mark}`)

/** A request of `protocol` whose history calls `ids` and answers them, as its clients send it. */
function request(protocol: ProtocolName, ids: readonly CallId[], withTools: boolean, stream: boolean) {
  const user = { role: "user", content: "Show me a.ts" }
  if (protocol === "chat")
    return {
      path: "/chat/completions",
      body: {
        model: "m",
        stream,
        ...(withTools ? { tools: [READ_FILE_TOOL] } : {}),
        messages: [
          user,
          {
            role: "assistant",
            content: null,
            tool_calls: ids.map((id) => ({
              id: spelled(id),
              type: "function",
              function: { name: "read_file", arguments: "{}" },
            })),
          },
          ...ids.map((id) => ({ role: "tool", tool_call_id: spelled(id), content: "x" })),
        ],
      },
    }
  if (protocol === "responses")
    return {
      path: "/responses",
      body: {
        model: "m",
        stream,
        ...(withTools ? { tools: [{ type: "function", name: "read_file", parameters: {} }] } : {}),
        input: [
          { type: "message", ...user },
          ...ids.flatMap((id) => [
            { type: "function_call", call_id: spelled(id), name: "read_file", arguments: "{}" },
            { type: "function_call_output", call_id: spelled(id), output: "x" },
          ]),
        ],
      },
    }
  return {
    path: "/messages",
    body: {
      model: "m",
      max_tokens: 100,
      stream,
      ...(withTools ? { tools: [{ name: "read_file", input_schema: { type: "object" } }] } : {}),
      messages: [
        user,
        {
          role: "assistant",
          content: ids.map((id) => ({ type: "tool_use", id: spelled(id), name: "read_file", input: {} })),
        },
        {
          role: "user",
          content: ids.map((id) => ({ type: "tool_result", tool_use_id: spelled(id), content: "x" })),
        },
      ],
    },
  }
}

/** Every call id a forwarded body carries, wherever its protocol keeps them. */
function forwardedIds(body: Record<string, unknown>): string[] {
  const ids: string[] = []
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const each of value) visit(each)
    else if (typeof value === "object" && value !== null) {
      for (const [key, field] of Object.entries(value)) {
        if (["call_id", "tool_call_id", "tool_use_id"].includes(key) && typeof field === "string")
          ids.push(field)
        else if (key === "id" && typeof field === "string") ids.push(field)
        else visit(field)
      }
    }
  }
  visit(body.messages ?? body.input)
  return ids
}

describe("the proxy's id marks never reach the upstream", () => {
  it.prop(
    [
      fc.constantFrom<ProtocolName>("chat", "responses", "messages"),
      fc.array(callId, { maxLength: 3 }),
      fc.boolean(),
      fc.boolean(),
    ],
    { numRuns: 30 },
  )(
    "any request the proxy forwards carries only the ids the upstream issued; one with no mark, the client's bytes",
    async (protocol, ids, withTools, stream) => {
      const { path, body } = request(protocol, ids, withTools, stream)
      const text = JSON.stringify(body)
      const response = await fetch(`${h.proxy.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      })
      await response.text()
      expect(response.status).toBe(200)
      const forwarded = h.upstream.requests.at(-1)!
      // Each id twice: the call, and the result that answers it.
      expect(forwardedIds(forwarded.body as Record<string, unknown>).sort()).toEqual(
        ids.flatMap((id) => [id.id, id.id]).sort(),
      )
      if (ids.every((id) => id.mark === 0)) expect(forwarded.rawBody).toBe(text)
    },
  )
})
