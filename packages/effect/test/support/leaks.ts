import { Effect, type Layer, Schema } from "effect"
import { type Response, Tool, Toolkit } from "effect/ai"
import { finish } from "./scripted-model.ts"

const Path: Schema.Struct<{ readonly path: Schema.String }> = Schema.Struct({ path: Schema.String })

export const ReadFile: Tool.Tool<
  "read_file",
  {
    readonly parameters: typeof Path
    readonly success: Schema.String
    readonly failure: Schema.Never
    readonly failureMode: "error"
  },
  never
> = Tool.make("read_file", { parameters: Path, success: Schema.String })

export const files: Toolkit.Toolkit<{ readonly read_file: typeof ReadFile }> = Toolkit.make(ReadFile)

/** Handlers for {@link files} that record the paths they read. */
export function fileHandlers(): {
  readonly read: string[]
  readonly layer: Layer.Layer<Tool.HandlersFor<Toolkit.Tools<typeof files>>>
} {
  const read: string[] = []
  const layer = files.toLayer({
    read_file: ({ path }) =>
      Effect.sync(() => {
        read.push(path)
        return `contents of ${path}`
      }),
  })
  return { read, layer }
}

/** Qwen3-Coder's leak: `<tool_call>` dropped, the rest written as text (FORMATS.md, `qwen3-coder`). */
export const qwenLeak =
  "<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>"

/** A streamed answer: a text block whose deltas are `deltas`, then `finish`. */
export function textStream(deltas: readonly string[], id = "txt"): Response.StreamPartEncoded[][] {
  return [
    [{ type: "text-start", id }],
    ...deltas.map((delta): Response.StreamPartEncoded[] => [{ type: "text-delta", id, delta }]),
    [{ type: "text-end", id }],
    [finish()],
  ]
}

/** A streamed structured call to `read_file`. */
export function callStream(path = "src/a.ts", id = "call_1"): Response.StreamPartEncoded[][] {
  return [[{ type: "tool-call", id, name: "read_file", params: { path } }], [finish("tool-calls")]]
}

/** The visible text of stream parts. */
export const streamedText = (parts: ReadonlyArray<{ readonly type: string }>): string =>
  parts
    .filter((part): part is Response.TextDeltaPart => part.type === "text-delta")
    .map((part) => part.delta)
    .join("")
