import { createModelLabels } from "@tool-rescue/recovery/adapter"
import fc from "fast-check"
import { expect, test } from "vitest"

test("model labels: the first `limit` distinct names are themselves, every later one 'other', a name keeps its label", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ maxLength: 8 }), { maxLength: 300 }),
      fc.integer({ min: 0, max: 20 }),
      (names, limit) => {
        const label = createModelLabels(limit)
        const first = new Map<string, string>()
        const labels = new Set<string>()
        for (const name of names) {
          const got = label(name)
          labels.add(got)
          if (name === "") expect(got).toBe("unknown")
          else if (first.has(name)) expect(got).toBe(first.get(name))
          else first.set(name, got)
        }
        // Bounded: at most `limit` names, plus `other` and `unknown`.
        expect(labels.size).toBeLessThanOrEqual(limit + 2)
        const distinct = [...new Set(names.filter((name) => name !== ""))]
        for (const [i, name] of distinct.entries()) expect(first.get(name)).toBe(i < limit ? name : "other")
      },
    ),
  )
})
