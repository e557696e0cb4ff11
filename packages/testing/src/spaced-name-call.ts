/**
 * GLM-4.7 calls naming a tool whose name has spaces in it, as Poolside Laguna writes them and
 * vLLM's `poolside_v1` parser reads them (`<tool_call>  get weather  <arg_key>city</arg_key>…`):
 * the name maybe padded with spaces or followed by a line break, then at least one argument.
 */
import fc from "fast-check"
import type { LeakLabels, Sample } from "./labels.ts"

/** Options of {@link spacedNameCall}. */
export interface SpacedNameCallOptions {
  /** The tools offered this turn; calls name those with a space in their name. */
  readonly tools: readonly string[]
}

const spacedName = /^[A-Za-z_][\w.-]*( +[\w.-]+)+$/
const keys = ["city", "path", "query", "limit"]
/** Argument values: no `<` (a value holding markup-like text is another test). */
const value = fc.string({ unit: fc.constantFrom(..."abc XYZ 019./_-:'\"\\\n北"), maxLength: 12 })

/**
 * One such call, complete, labelled as the detector must report it (`glm`, recoverable).
 *
 * @example
 * ```ts
 * import { spacedNameCall } from "@tool-rescue/testing"
 *
 * const arbitrary = spacedNameCall({ tools: ["get weather", "read_file"] })
 * ```
 */
export function spacedNameCall(options: SpacedNameCallOptions): fc.Arbitrary<Sample<LeakLabels>> {
  const names = options.tools.filter((tool) => spacedName.test(tool))
  if (names.length === 0) throw new Error("spacedNameCall: no offered tool has a space in its name")
  return fc
    .record({
      name: fc.constantFrom(...names),
      before: fc.constantFrom("", " ", "  ", "\n"),
      after: fc.constantFrom("", " ", "  ", "\n"),
      args: fc.array(fc.tuple(fc.constantFrom(...keys), value), { minLength: 1, maxLength: 3 }),
      nl: fc.constantFrom("", "\n"),
    })
    .map(({ name, before, after, args, nl }) => ({
      text: `<tool_call>${before}${name}${after}${args
        .map(([key, v]) => `<arg_key>${key}</arg_key>${nl}<arg_value>${v}</arg_value>${nl}`)
        .join("")}</tool_call>`,
      labels: {
        tools: [name],
        recoverable: true,
        calls: [
          {
            format: "glm",
            formatAliases: [],
            toolName: name,
            offered: true,
            opening: true,
            closing: true,
            complete: true,
            inReasoning: false,
            answerFollows: false,
            recoverable: true,
          },
        ],
        format: "glm",
        variant: "complete",
        startAnchored: false,
        closed: true,
      },
    }))
}
