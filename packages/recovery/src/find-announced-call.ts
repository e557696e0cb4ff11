import { normalizeToolName } from "./suggest-tool-names.ts"

/**
 * Announced-but-missing calls: an answer that **ends** by announcing the use of an offered tool
 * ("I'll use the Glob tool to list the files.") while the response holds no call and no markup.
 *
 * Conservative by design, because a false positive costs a retry of a good answer:
 * - only the answer's final sentence is read (at most {@link TAIL} characters from the end);
 * - an answer that ends inside a fenced code block, or whose final sentence is code, is never read;
 *   inline code counts only when it is exactly a tool's name (`` `read_file` ``);
 * - the sentence must say, in this order, an intent ("I'll", "I will", "let me", "I'm going to",
 *   …), within four words a verb of use ("use", "call", "run", "invoke", "execute", "try"), and
 *   within three more words the name of an **offered** tool (case- and separator-insensitive);
 * - a negation between them ("I won't use", "I will not call", "without using") disproves it;
 * - a final sentence that ends with a question mark asks, it does not announce.
 *
 * The work is bounded by {@link TAIL} whatever the answer's length; no regular expression runs
 * on the answer.
 *
 * @example
 * ```ts
 * import { findAnnouncedCall } from "@tool-rescue/recovery/adapter"
 *
 * findAnnouncedCall("I'll use the Glob tool to list all markdown files.", ["Glob", "Read"])
 * // { toolName: "Glob", sentence: "I'll use the Glob tool to list all markdown files." }
 * findAnnouncedCall("The Glob tool lists files; I used it earlier.", ["Glob"]) // undefined
 * ```
 */
export function findAnnouncedCall(answer: string, tools: Iterable<string>): AnnouncedCall | undefined {
  if (endsInsideFence(answer)) return undefined
  const sentence = finalSentence(answer)
  if (sentence === undefined || isQuestion(sentence)) return undefined
  const byName = new Map<string, string>()
  for (const tool of tools) {
    const key = normalizeToolName(tool)
    if (key !== "" && !byName.has(key)) byName.set(key, tool)
  }
  if (byName.size === 0) return undefined
  const words = tokenize(sentence)
  for (let i = 0; i < words.length; i++) {
    const intent = intentAt(words, i)
    if (intent === 0) continue
    const verb = findWithin(words, i + intent, 4, (w) => USE_VERBS.has(w.text))
    if (verb === -1) continue
    const toolName = toolWithin(words, verb + 1, 3, byName)
    if (toolName !== undefined) return { toolName, sentence }
  }
  return undefined
}

/**
 * What {@link findAnnouncedCall} found: the offered tool the answer said it would use, and the
 * sentence that says so.
 *
 * @example
 * ```ts
 * import type { AnnouncedCall } from "@tool-rescue/recovery/adapter"
 *
 * const found: AnnouncedCall = { toolName: "Glob", sentence: "Let me use Glob." }
 * ```
 */
export interface AnnouncedCall {
  readonly toolName: string
  readonly sentence: string
}

/** How far from the end of the answer the final sentence is looked for. */
const TAIL = 600

interface Word {
  readonly text: string
  /** Written as inline code (`` `name` ``): it may only be a tool's name. */
  readonly code: boolean
}

/** The intents, as word sequences (lower case, apostrophes straightened). */
const INTENTS: readonly (readonly string[])[] = [
  ["i'll"],
  ["i", "will"],
  ["i", "shall"],
  ["let", "me"],
  ["let's"],
  ["i'm", "going", "to"],
  ["i", "am", "going", "to"],
  ["i'm", "gonna"],
  ["i", "need", "to"],
  ["i'd", "like", "to"],
  ["i", "want", "to"],
  ["i'm", "about", "to"],
  ["now", "i'll"],
]

const USE_VERBS = new Set(["use", "call", "run", "invoke", "execute", "try", "using", "calling", "running"])
const NEGATIONS = new Set([
  "not",
  "never",
  "no",
  "won't",
  "don't",
  "can't",
  "cannot",
  "without",
  "shouldn't",
  "wouldn't",
])
const FILLERS = new Set(["the", "a", "an", "my", "our", "your", "this", "that"])
/** Another subject before the verb: someone else would use the tool (`I'll show how you can use bash`). */
const OTHER_SUBJECTS = new Set(["you", "we", "they", "he", "she", "it", "someone", "one"])

/** The number of words of an intent that starts at `i`, or 0. */
function intentAt(words: readonly Word[], i: number): number {
  for (const intent of INTENTS) {
    if (intent.every((w, k) => words[i + k]?.text === w && !words[i + k]?.code)) return intent.length
  }
  return 0
}

/** The index of the first of the next `span` words that passes `test`, or -1; a negation stops it. */
function findWithin(words: readonly Word[], from: number, span: number, test: (w: Word) => boolean): number {
  for (let k = from; k < Math.min(words.length, from + span); k++) {
    const word = words[k]!
    if (NEGATIONS.has(word.text) || (!word.code && OTHER_SUBJECTS.has(word.text))) return -1
    if (!word.code && test(word)) return k
  }
  return -1
}

/** The offered tool named by one word (or up to three, for `list directory`) near `from`. */
function toolWithin(
  words: readonly Word[],
  from: number,
  span: number,
  byName: ReadonlyMap<string, string>,
): string | undefined {
  for (let k = from; k < Math.min(words.length, from + span); k++) {
    const word = words[k]!
    if (NEGATIONS.has(word.text)) return undefined
    if (word.code) return byName.get(normalizeToolName(word.text))
    let joined = ""
    for (let n = 0; n < 3 && k + n < words.length && !words[k + n]!.code; n++) {
      joined += normalizeToolName(words[k + n]!.text)
      const tool = byName.get(joined)
      if (tool !== undefined) return tool
    }
    if (!FILLERS.has(word.text)) return undefined
  }
  return undefined
}

/**
 * The last sentence of the answer, or undefined when there is none to read: its final line up to
 * {@link TAIL} characters, from after the last sentence end (`.`, `!`, `?` followed by a space)
 * that is not the line's own final punctuation.
 */
function finalSentence(answer: string): string | undefined {
  let end = answer.length
  while (end > 0 && isSpace(answer.charCodeAt(end - 1))) end--
  if (end === 0) return undefined
  const floor = Math.max(0, end - TAIL)
  let start = answer.lastIndexOf("\n", end - 1) + 1
  if (start < floor) start = floor
  // Trailing punctuation (`.`, `:`, `…`) ends the sentence; look for the end of the one before.
  let body = end
  while (body > start && TERMINALS.has(answer[body - 1]!)) body--
  for (let i = body - 1; i > start; i--) {
    if (TERMINALS.has(answer[i - 1]!) && isSpace(answer.charCodeAt(i))) {
      start = i
      break
    }
  }
  const sentence = answer.slice(start, end).trim()
  return sentence === "" ? undefined : sentence
}

const TERMINALS = new Set([".", "!", "?", ":", "…"])

/** `…get_weather?`, `…get_weather?!`, `…(Glob)?` — the sentence's last terminal is a question mark. */
function isQuestion(sentence: string): boolean {
  let end = sentence.length
  while (end > 0 && (sentence[end - 1] === "!" || sentence[end - 1] === ")" || sentence[end - 1] === '"'))
    end--
  return sentence[end - 1] === "?" || sentence[end - 1] === "？"
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d
}

/**
 * Whether the answer ends inside a fenced code block (CommonMark §4.5: an unclosed fence runs to
 * the end) or on an indented code line: one pass over the lines, linear in the answer.
 */
function endsInsideFence(answer: string): boolean {
  let open: string | undefined
  let lineStart = 0
  let lastLine = ""
  while (lineStart <= answer.length) {
    const nl = answer.indexOf("\n", lineStart)
    const lineEnd = nl === -1 ? answer.length : nl
    const line = answer.slice(lineStart, lineEnd)
    const fence = fenceOf(line)
    if (fence !== undefined) {
      if (open === undefined) open = fence
      else if (fence.startsWith(open[0]!) && fence.length >= open.length) open = undefined
    }
    if (line.trim() !== "") lastLine = line
    if (nl === -1) break
    lineStart = nl + 1
  }
  // A final line indented as code (four spaces or a tab) is code, not a sentence.
  return open !== undefined || lastLine.startsWith("    ") || lastLine.startsWith("\t")
}

/** The fence marker a line opens or closes with (``` or ~~~, three or more), ≤ 3 spaces indent. */
function fenceOf(line: string): string | undefined {
  let i = 0
  while (i < 3 && line[i] === " ") i++
  const ch = line[i]
  if (ch !== "`" && ch !== "~") return undefined
  let n = i
  while (line[n] === ch) n++
  return n - i >= 3 ? line.slice(i, n) : undefined
}

/** Words of a sentence: runs of letters, digits and name characters; `code` spans as one word. */
function tokenize(sentence: string): Word[] {
  const words: Word[] = []
  let i = 0
  while (i < sentence.length) {
    const ch = sentence[i]!
    if (ch === "`") {
      const close = sentence.indexOf("`", i + 1)
      if (close === -1) break
      words.push({
        text: sentence
          .slice(i + 1, close)
          .trim()
          .toLowerCase(),
        code: true,
      })
      i = close + 1
    } else if (isWordChar(ch)) {
      let j = i
      while (j < sentence.length && isWordChar(sentence[j]!)) j++
      const text = sentence.slice(i, j).toLowerCase().replaceAll("’", "'")
      words.push({ text: trimEdges(text), code: false })
      i = j
    } else i++
  }
  return words.filter((w) => w.text !== "")
}

function isWordChar(ch: string): boolean {
  return /[\p{L}\p{N}_'’\-./:]/u.test(ch)
}

/** `files.` → `files`, `'quoted'` → `quoted`: edge punctuation is not part of a word. */
function trimEdges(text: string): string {
  let a = 0
  let b = text.length
  while (a < b && EDGES.has(text[a]!)) a++
  while (b > a && EDGES.has(text[b - 1]!)) b--
  return text.slice(a, b)
}

const EDGES = new Set([".", ":", "-", "'", "/"])
