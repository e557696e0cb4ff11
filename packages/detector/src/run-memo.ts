/**
 * Runs already read. A decision that needs more input than has arrived is tried again on the next
 * push, from its start: without this memo, every run it reads on the way (whitespace, a name, a
 * string's body, a backtick run — as long as the hold cap) would be read again on every push, and a
 * stream of 4-character deltas would cost the run's length per delta.
 *
 * Each entry is a fact about the text: from stream offset `from`, the characters up to `to` all
 * belong to the run's class (`key`: the pattern or scan that read them). A reader resumes at `to`
 * (or at its own limit, if nearer) and reads on; the answer is the one a fresh read would give.
 */

/** What read a run: a `ws`/`name` pattern, or a scan's own symbol. */
export type RunKey = object | symbol

/** A few runs, replaced in turn. */
export interface RunMemo {
  /** Absolute offset of `buf[0]` (runs are kept in stream offsets, which settling does not move). */
  base: number
  keys: RunKey[]
  from: number[]
  to: number[]
  next: number
}

/** Runs shorter than this are cheap to read again. */
const SHORT = 8
const SLOTS = 4

export function createRunMemo(): RunMemo {
  return { base: 0, keys: [], from: [], to: [], next: 0 }
}

/** Where a run of `key` at buffer index `i` may be resumed (`i` if it was not read before), at most `limit`. */
export function resumeRun(memo: RunMemo, key: RunKey, i: number, limit: number): number {
  const at = memo.base + i
  for (let k = 0; k < memo.keys.length; k++) {
    if (memo.keys[k] === key && memo.from[k] === at) return Math.min(memo.to[k]! - memo.base, limit)
  }
  return i
}

/** Notes that the run of `key` at buffer index `i` reaches at least index `j`. */
export function noteRun(memo: RunMemo, key: RunKey, i: number, j: number): void {
  if (j - i < SHORT) return
  const at = memo.base + i
  let k = 0
  while (k < memo.keys.length && !(memo.keys[k] === key && memo.from[k] === at)) k++
  if (k === memo.keys.length) {
    k = memo.keys.length < SLOTS ? memo.keys.length : memo.next
    memo.next = (k + 1) % SLOTS
  }
  memo.keys[k] = key
  memo.from[k] = at
  memo.to[k] = memo.base + j
}
