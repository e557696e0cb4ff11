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
  readonly keys: RunKey[]
  readonly from: number[]
  readonly to: number[]
  next: number
  /** Python argument lists read (`py-args`: the calls of one line), made on first need, replaced in turn. */
  py?: PyCheckpoint[]
  pyNext?: number
}

/**
 * Where a `py-args` read from stream offset `from` stopped (`to`) and its lexer state there: the
 * bracket depth (0: closed, `to` is after its `)`), the open string's quote (0: none) and whether a
 * backslash escapes the next character.
 */
export interface PyCheckpoint {
  from: number
  to: number
  depth: number
  quote: number
  escaped: boolean
}

/**
 * Where a reader's runs are remembered: the offset of its text's first character in the stream
 * (runs are kept in stream offsets, which settling does not move) and the memo, made on the first
 * run worth noting (most detectors never note one: an idle detector stays small).
 */
export interface RunHolder {
  readonly base: number
  runMemo: RunMemo | undefined
}

/** Runs shorter than this are cheap to read again. */
const SHORT = 8
const SLOTS = 4
/** More than the argument lists one confirm reads (a bare call and the four after it on its line). */
const PY_SLOTS = 6

/** Where a run of `key` at buffer index `i` may be resumed (`i` if it was not read before), at most `limit`. */
export function resumeRun(holder: RunHolder, key: RunKey, i: number, limit: number): number {
  const memo = holder.runMemo
  if (memo === undefined) return i
  const at = holder.base + i
  for (let k = 0; k < memo.keys.length; k++) {
    if (memo.keys[k] === key && memo.from[k] === at) return Math.min(memo.to[k]! - holder.base, limit)
  }
  return i
}

/** Notes that the run of `key` at buffer index `i` reaches at least index `j`. */
export function noteRun(holder: RunHolder, key: RunKey, i: number, j: number): void {
  if (j - i < SHORT) return
  holder.runMemo ??= { keys: [], from: [], to: [], next: 0 }
  const memo = holder.runMemo
  const at = holder.base + i
  let k = 0
  while (k < memo.keys.length && !(memo.keys[k] === key && memo.from[k] === at)) k++
  if (k === memo.keys.length) {
    k = memo.keys.length < SLOTS ? memo.keys.length : memo.next
    memo.next = (k + 1) % SLOTS
  }
  memo.keys[k] = key
  memo.from[k] = at
  memo.to[k] = holder.base + j
}

/**
 * Where a search of `key` from buffer index `i` may resume: inside any run of it noted from an
 * earlier position (a search's run is "no occurrence starts before `to`", true from every position
 * in it), else `i`; at most `limit`. Candidates close together then share one search.
 */
export function resumeWithin(holder: RunHolder, key: RunKey, i: number, limit: number): number {
  const memo = holder.runMemo
  if (memo === undefined) return i
  const at = holder.base + i
  for (let k = 0; k < memo.keys.length; k++) {
    if (memo.keys[k] === key && memo.from[k]! <= at && at <= memo.to[k]!)
      return Math.min(memo.to[k]! - holder.base, limit)
  }
  return i
}

/** The `py-args` read from buffer index `i` so far (stream offsets), if it was read before (and not past `limit`). */
export function resumePy(holder: RunHolder, i: number, limit: number): Readonly<PyCheckpoint> | undefined {
  const py = holder.runMemo?.py
  if (py === undefined) return undefined
  const at = holder.base + i
  for (const read of py) if (read.from === at) return read.to - holder.base > limit ? undefined : read
  return undefined
}

/** Notes the `py-args` read from buffer index `i` as far as `j`, with its lexer state there. */
export function notePy(
  holder: RunHolder,
  i: number,
  j: number,
  depth: number,
  quote: number,
  escaped: boolean,
): void {
  if (j - i < SHORT) return
  holder.runMemo ??= { keys: [], from: [], to: [], next: 0 }
  const memo = holder.runMemo
  const at = holder.base + i
  memo.py ??= []
  const py = memo.py
  let read = py.find((r) => r.from === at)
  if (read === undefined) {
    const k = py.length < PY_SLOTS ? py.length : (memo.pyNext ?? 0)
    memo.pyNext = (k + 1) % PY_SLOTS
    read = { from: at, to: 0, depth: 0, quote: 0, escaped: false }
    py[k] = read
  }
  read.to = holder.base + j
  read.depth = depth
  read.quote = quote
  read.escaped = escaped
}
