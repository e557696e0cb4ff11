import type { LanguageModelV4StreamPart as Part } from "@ai-sdk/provider"
import { generateText, streamText, tool, wrapLanguageModel } from "ai"
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"
import { test } from "vitest"
import { z } from "zod"
import { toolCallRecoveryMiddleware } from "../src/index.ts"
import { usage } from "./fixtures.ts"

const fin: Part = { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(1, 1) }
const t = (id: string, ...d: string[]): Part[] => [{ type: "text-start", id }, ...d.map((delta) => ({ type: "text-delta", id, delta }) as Part), { type: "text-end", id }]
const r = (id: string, ...d: string[]): Part[] => [{ type: "reasoning-start", id }, ...d.map((delta) => ({ type: "reasoning-delta", id, delta }) as Part), { type: "reasoning-end", id }]
const cases: Record<string, Part[]> = {
  twoBlocks: [...t("a", "Hello <tool"), ...t("b", "box> done"), fin],
  twoBlocksEndHeld: [...t("a", "Hello <tool_ca"), fin],
  reasonThenText: [...r("r", "think <tool_ca"), ...t("a", "ll> answer"), fin],
  interleaved: [{ type: "text-start", id: "a" }, { type: "text-delta", id: "a", delta: "x <func" }, ...r("r", "hmm"), { type: "text-delta", id: "a", delta: "tion=foo> y" }, { type: "text-end", id: "a" }, fin],
  emptyDeltas: [{ type: "text-start", id: "a" }, { type: "text-delta", id: "a", delta: "" }, { type: "text-delta", id: "a", delta: "ok" }, { type: "text-delta", id: "a", delta: "" }, { type: "text-end", id: "a" }, fin],
  surrogate: [...t("a", "a\uD83D", "\uDE00b"), fin],
  surrogateEnd: [...t("a", "a\uD83D"), fin],
  noTextEnd: [{ type: "text-start", id: "a" }, { type: "text-delta", id: "a", delta: "Hi <tool_c" }, fin],
}
for (const [name, parts] of Object.entries(cases))
  for (const mode of ["stream", "generate"])
    test(`${name} ${mode}`, async () => {
      const inner = new MockLanguageModelV4({
        doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
        doGenerate: async () => { throw new Error("n/a") },
      })
      const model = wrapLanguageModel({ model: inner, middleware: toolCallRecoveryMiddleware() })
      const tools = { read_file: tool({ inputSchema: z.object({ path: z.string() }), execute: async () => "x" }) }
      const res = streamText({ model, prompt: "x", tools, maxRetries: 0, onError(e) { console.log("ERR", e) } })
      let text = ""; let reasoning = ""
      for await (const p of res.fullStream) { if (p.type === "text-delta") text += p.text; if (p.type === "reasoning-delta") reasoning += p.text }
      const want = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")
      const wantR = parts.flatMap((p) => (p.type === "reasoning-delta" ? [p.delta] : [])).join("")
      console.log(name, text === want ? "OK" : `TEXT ${JSON.stringify(text)} != ${JSON.stringify(want)}`, reasoning === wantR ? "OK" : `REASON ${JSON.stringify(reasoning)} != ${JSON.stringify(wantR)}`)
    })
