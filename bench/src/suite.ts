/**
 * The benchmark registry. A suite file calls `registerSuite` when imported; `run.ts` imports every
 * suite file (one line each) and runs what registered, in import order.
 */

/** One benchmark suite: `run` measures and returns a Markdown report. */
export interface Suite {
  /** Short id, used for `bench/results/<name>.md` and to select suites on the command line. */
  readonly name: string
  readonly run: () => string | Promise<string>
}

const suites: Suite[] = []

/** Adds a suite to the run. */
export function registerSuite(suite: Suite): void {
  if (suites.some((s) => s.name === suite.name))
    throw new Error(`bench: suite ${suite.name} registered twice`)
  suites.push(suite)
}

/**
 * The text deltas of a clean answer for the middleware suites (ai-sdk, effect): token-sized words,
 * some with a `<` or code, none a marker: every delta goes through the detector and out.
 */
export const CLEAN_WORDS: readonly string[] = [
  "the ",
  "model ",
  "streams ",
  "a < b ",
  "and ",
  "prose, ",
  "with ",
  "code: x.y() ",
  "tokens ",
  "here.\n",
]

/** The median of a non-empty list of timings (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The suites registered so far, in registration order. */
export function registeredSuites(): readonly Suite[] {
  return suites
}

/**
 * Times two variants of one workload in interleaved pairs, after `warmups` pairs, alternating
 * which runs first (the second run of a pair may profit from a warmer heap): machine noise hits
 * both alike. `run(variant)` returns one timing. Returns the timings of each, pair by pair.
 */
export async function interleavedPairs(
  iterations: number,
  warmups: number,
  run: (variant: boolean) => Promise<number>,
): Promise<{ readonly base: number[]; readonly variant: number[] }> {
  for (let i = 0; i < warmups; i++) {
    await run(false)
    await run(true)
  }
  const base: number[] = []
  const variant: number[] = []
  for (let i = 0; i < iterations; i++) {
    if (i % 2 === 0) {
      base.push(await run(false))
      variant.push(await run(true))
    } else {
      variant.push(await run(true))
      base.push(await run(false))
    }
  }
  return { base, variant }
}
