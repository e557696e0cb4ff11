import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { harnessPerTest, QWEN_LEAK } from "./support/harness.ts"
import { statefulUpstream } from "./support/stateful-upstream.ts"

const start = harnessPerTest()
const tools = [
  { type: "function" as const, name: "read_file", parameters: { type: "object" }, strict: false },
]
type Response = OpenAI.Responses.Response

/** The answer text of a response (a streamed one's terminal event has no `output_text`). */
const textOf = (response: Response): string =>
  response.output
    .flatMap((item) => (item.type === "message" ? item.content : []))
    .map((part) => (part.type === "output_text" ? part.text : ""))
    .join("")

/** One response through the real client, streamed (its terminal event's response) or not. */
async function create(
  client: OpenAI,
  streamed: boolean,
  body: OpenAI.Responses.ResponseCreateParamsNonStreaming,
): Promise<Response> {
  if (!streamed) return client.responses.create(body)
  let final: Response | undefined
  for await (const event of await client.responses.create({ ...body, stream: true }))
    if (event.type === "response.completed") final = event.response
  if (final === undefined) throw new Error("the stream had no response.completed")
  return final
}

describe("stateful Responses (store: true, continued by previous_response_id)", () => {
  it.each([
    ["not streamed", false],
    ["streamed", true],
  ])(
    "%s: a recovered response is the retry's, chained like the first attempt, and its continuation reaches the upstream with the ids it issued",
    async (_name, streamed) => {
      const upstream = statefulUpstream([
        { content: "Hello." },
        { content: QWEN_LEAK, chunkSize: 9 },
        { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}', id: "call_a" }] },
        { content: "It exports nothing." },
      ])
      const h = await start(upstream.script)
      const client = new OpenAI({ baseURL: h.proxy.url, apiKey: "k", maxRetries: 0 })
      const hello = await create(client, streamed, { model: "m", input: "hi", tools, store: true })

      const recovered = await create(client, streamed, {
        model: "m",
        input: "Show me a.ts",
        previous_response_id: hello.id,
        tools,
        store: true,
      })
      expect(recovered.id).toBe("resp_replay_2")
      const call = recovered.output.find((item) => item.type === "function_call")!
      expect(call.call_id).toBe("call_a-retry1")
      // The retry chains from the first attempt's previous response, never from the malformed one.
      expect(h.upstream.requests[2]!.body!.previous_response_id).toBe(hello.id)

      const answer = await create(client, streamed, {
        model: "m",
        previous_response_id: recovered.id,
        input: [{ type: "function_call_output", call_id: call.call_id, output: "export {}" }],
        tools,
        store: true,
      })
      expect(textOf(answer)).toBe("It exports nothing.")
      expect(h.upstream.requests[3]!.rawBody).not.toContain("-retry")
      // The stored malformed response is in no chain.
      expect(upstream.chain(answer.id)).toEqual(["resp_replay_0", "resp_replay_2", "resp_replay_3"])
      expect(h.turns()).toBe(4)
    },
  )

  it("a continuation that carries the mark in a full history (function_call and its output) goes upstream unmarked", async () => {
    const upstream = statefulUpstream([{ content: "Done." }])
    const h = await start(upstream.script)
    const client = new OpenAI({ baseURL: h.proxy.url, apiKey: "k", maxRetries: 0 })
    await client.responses.create({
      model: "m",
      tools,
      input: [
        { type: "message", role: "user", content: "Show me a.ts" },
        { type: "function_call", call_id: "call_a-retry1", name: "read_file", arguments: "{}" },
        { type: "function_call_output", call_id: "call_a-retry1", output: "export {}" },
      ],
    })
    const input = h.upstream.requests[0]!.body!.input as { call_id?: string }[]
    expect(input.map((item) => item.call_id)).toEqual([undefined, "call_a", "call_a"])
  })

  it.each([
    ["not streamed", false],
    ["streamed", true],
  ])(
    "%s, with a conversation: the markup is withheld and the turn ends with an error that names why, with no retry",
    async (_name, streamed) => {
      const h = await start([
        { content: `Reading it. ${QWEN_LEAK}`, chunkSize: 7 },
        { content: "never sent" },
      ])
      const client = new OpenAI({ baseURL: h.proxy.url, apiKey: "k", maxRetries: 0 })
      const shown: string[] = []
      // Not streamed: an HTTP 422. Streamed: the stream ends with `response.failed` (the final form
      // clients do not retry), whose error names why.
      let failedEvent: { code?: string | null; message?: string } | undefined
      const failure = await (async () => {
        const body = { model: "m", input: "Show me a.ts", tools, conversation: "conv_1" }
        if (!streamed) return client.responses.create(body)
        for await (const event of await client.responses.create({ ...body, stream: true })) {
          if (event.type === "response.output_text.delta") shown.push(event.delta)
          if (event.type === "response.failed") failedEvent = event.response.error ?? {}
        }
      })().then(
        () => undefined,
        (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
      )
      const reason = /could not be retried: the request's `conversation` already holds/
      if (streamed) {
        expect(failure).toBeUndefined()
        expect(failedEvent?.code).toBe("invalid_prompt")
        expect(failedEvent?.message).toMatch(reason)
      } else {
        expect(failure).toBeInstanceOf(OpenAI.APIError)
        expect(failure!.message).toMatch(reason)
        expect(failure!.status).toBe(422)
      }
      expect(shown.join("")).not.toContain("<tool_call>")
      expect(h.turns()).toBe(1)
    },
  )
})
