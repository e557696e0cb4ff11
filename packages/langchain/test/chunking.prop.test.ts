/**
 * Properties of a wrapped ChatOpenAI as the LangChain user sees it, over real HTTP against the
 * replay server: for any response (prose, code examples, leaks in every format; `response()` from
 * `@tool-rescue/testing`) and any split of it into streamed deltas, `stream()` shows the same
 * text and takes the same decision as the response in one delta (on Chat Completions and on the
 * Responses API), `invoke()` agrees, and a
 * response the labels call recoverable is retried once while anything else never is.
 */
import { fc, test } from "@fast-check/vitest"
import { HumanMessage } from "@langchain/core/messages"
import { chunked, response } from "@tool-rescue/testing"
import { describe, expect } from "vitest"
import { collect, functionTool, harness } from "./support/harness.ts"

const TOOLS = ["read_file", "bash"]
const tools = TOOLS.map(functionTool)
const messages = [new HumanMessage("Go.")]
const retry = { toolCalls: [{ name: "read_file", arguments: '{"path":"a.ts"}' }] }

const sample = response({ tools: TOOLS, unknownTools: true, maxParts: 3 }).chain((value) =>
  fc
    .record({ chunks: chunked(value.text), responsesApi: fc.boolean() })
    .map((extra) => ({ ...value, ...extra })),
)

/** Text of string content or of content blocks (the Responses API). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content
  return (content as { type: string; text?: string }[])
    .map((block) => (block.type === "text" ? (block.text ?? "") : ""))
    .join("")
}

interface Seen {
  readonly text: string
  readonly requests: number
  readonly toolCalls: readonly string[]
}

async function streamed(content: string | readonly string[], useResponsesApi: boolean): Promise<Seen> {
  const { model, server } = await harness([{ content }, retry], {}, { useResponsesApi })
  const chunks = await collect(await model.bindTools(tools).stream(messages))
  let whole = chunks[0]
  for (const chunk of chunks.slice(1)) whole = whole?.concat(chunk)
  return {
    text: chunks.map((chunk) => textOf(chunk.content)).join(""),
    requests: server.requests.length,
    toolCalls: (whole?.tool_calls ?? []).map((call) => call.name),
  }
}

describe("wrapped ChatOpenAI over HTTP", () => {
  // Each run is five HTTP exchanges through LangChain: few runs, and a timeout far above a loaded
  // machine's (about 2 s in all on a quiet one).
  test.prop([sample], { numRuns: 15 })(
    "any chunking shows the same text and takes the same decision as one delta",
    async ({ text, chunks, responsesApi, labels }) => {
      const whole = await streamed(text, responsesApi)
      const split = await streamed(chunks.length === 0 ? [""] : chunks, responsesApi)
      expect(split).toEqual(whole)
      // Recoverable per the labels ⇔ one retry, whose structured call is the result.
      expect(whole.requests).toBe(labels.recoverable ? 2 : 1)
      expect(whole.toolCalls).toEqual(labels.recoverable ? ["read_file"] : [])
      // Nothing is lost: a response without markup (prose, code examples) is shown whole.
      if (labels.calls.length === 0) expect(whole.text).toBe(text)

      const { model } = await harness([{ content: text }, retry], {}, { useResponsesApi: responsesApi })
      const reply = await model.bindTools(tools).invoke(messages)
      // The non-streamed result never holds the malformed response; a clean one is untouched.
      expect(textOf(reply.content)).toBe(labels.recoverable ? "" : whole.text)
    },
    120_000,
  )
})
