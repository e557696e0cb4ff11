/**
 * `announced`: how often `findAnnouncedCall` (the `announcedCalls: "retry"` outcome) fires —
 * on answers that must never fire it (false positives: each would retry a good answer) and on
 * the corpus's real leaks with the markup taken out (what the answer says when its call is lost).
 * A rate, not a speed: seeded, so two runs print the same table.
 */
import { scan } from "@tool-rescue/detector"
import { findAnnouncedCall } from "@tool-rescue/recovery/adapter"
import { corpus, prose } from "@tool-rescue/testing"
import fc from "fast-check"
import { registerSuite } from "./suite.ts"

const SAMPLES = 20_000
const SEED = 42

interface Rate {
  readonly name: string
  readonly flagged: number
  readonly total: number
}

export function measureAnnounced(): Rate[] {
  const tools = ["Glob", "Read", "Bash", "read_file", "get_weather", "list_directory"]
  const generated = fc.sample(prose({ maxSentences: 8 }), { numRuns: SAMPLES, seed: SEED })
  const proseFlagged = generated.filter((p) => findAnnouncedCall(p.text, tools) !== undefined).length

  // The corpus: each sample's visible text once its markup is withheld — the answer the user
  // would see if the call were lost. Flagging it is right: a call was meant.
  const visible = corpus.map((sample) => ({
    text: scan(sample.text, { tools: sample.tools }).text,
    tools: sample.tools,
  }))
  const corpusFlagged = visible.filter((v) => findAnnouncedCall(v.text, v.tools) !== undefined).length
  // The corpus's prose with no tool offered at all: nothing can be an announcement.
  const unoffered = visible.filter((v) => findAnnouncedCall(v.text, ["some_other_tool"]) !== undefined).length

  return [
    {
      name: `generated prose (\`prose()\`, seed ${SEED}), offered ${tools.join(", ")}`,
      flagged: proseFlagged,
      total: SAMPLES,
    },
    {
      name: "corpus answers, markup withheld, a call was meant (detections)",
      flagged: corpusFlagged,
      total: visible.length,
    },
    { name: "corpus answers, none of their tools offered", flagged: unoffered, total: visible.length },
  ]
}

function report(): string {
  const rows = measureAnnounced().map(
    (r) => `| ${r.name} | ${r.flagged} / ${r.total} | ${((100 * r.flagged) / r.total).toFixed(2)}% |`,
  )
  return [
    "# announced-but-missing calls: how often `findAnnouncedCall` fires",
    "",
    "| answers | flagged | rate |",
    "|---|---:|---:|",
    ...rows,
    "",
  ].join("\n")
}

registerSuite({ name: "announced", run: async () => report() })
