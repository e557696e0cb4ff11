/**
 * A response's headers as the proxy holds them: web `Headers` (a `fetch` upstream's, any runtime),
 * or a {@link FieldList} (undici's on Node, made from its record with no `Headers` between).
 * Both are read with `get`; `forward-headers.ts` filters either into the same kind.
 */
export type ResponseHeaders = Headers | FieldList

/** undici's record of a response's headers: lower-case names, a repeated header's values in an array. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>

const TAB = 0x09
const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20

function isHttpWhitespace(code: number): boolean {
  return code === SPACE || code === TAB || code === LF || code === CR
}

/**
 * `value` without leading and trailing HTTP whitespace (RFC 9110 §5.5), as `Headers` stores it;
 * the string itself, no copy, when there is none (the usual case).
 */
export function trimHttpWhitespace(value: string): string {
  let start = 0
  let end = value.length
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--
  return start === 0 && end === value.length ? value : value.slice(start, end)
}

const UPPER_A = 0x41
const UPPER_Z = 0x5a
const NON_ASCII = 0x80

/**
 * `value.toLowerCase()`, without its copy when there is nothing to lower (a header name as
 * clients usually send it): `toLowerCase` copied every name it was given.
 */
export function lowerCase(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if ((code >= UPPER_A && code <= UPPER_Z) || code >= NON_ASCII) return value.toLowerCase()
  }
  return value
}

/**
 * Header fields as one flat list — name, value, name, value, … — with lower-case names, a
 * repeated header's values joined with ", " as `Headers` joins them, and a field per `set-cookie`
 * value: what Node's `writeHead` takes as it is (a name such as `__proto__` is just a string
 * here). Read like `Headers` (`get`); web `Headers` are made of it only where a web `Response` is
 * built ({@link webHeaders}). Each web `Headers` on the Node path cost more than the list: every
 * `forEach` sorts its entries, every `append` validates.
 */
export class FieldList {
  /** Name, value, name, value, …: never changed once made (mutable only as `writeHead` types it). */
  readonly fields: string[]

  constructor(fields: string[]) {
    this.fields = fields
  }

  /** As `Headers.get`: the values of the fields named `name` (lower-case) joined with ", ", or null. */
  get(name: string): string | null {
    const { fields } = this
    let found: string | null = null
    for (let i = 0; i + 1 < fields.length; i += 2)
      if (fields[i] === name) found = found === null ? fields[i + 1]! : `${found}, ${fields[i + 1]!}`
    return found
  }

  /**
   * The fields of undici's record (values trimmed as `Headers` trims them). Counted first, so the
   * list is allocated once at its size.
   */
  static fromRecord(record: HeaderRecord): FieldList {
    let count = 0
    for (const name in record) {
      if (!Object.hasOwn(record, name)) continue
      const value = record[name]
      if (value === undefined) continue
      count += typeof value === "string" || name !== "set-cookie" ? 2 : 2 * value.length
    }
    const fields: string[] = new Array(count)
    let at = 0
    for (const name in record) {
      if (!Object.hasOwn(record, name)) continue
      const value = record[name]
      if (value === undefined) continue
      if (typeof value === "string") {
        fields[at++] = name
        fields[at++] = trimHttpWhitespace(value)
      } else if (name === "set-cookie") {
        for (const cookie of value) {
          fields[at++] = name
          fields[at++] = trimHttpWhitespace(cookie)
        }
      } else {
        fields[at++] = name
        fields[at++] = value.map(trimHttpWhitespace).join(", ")
      }
    }
    return new FieldList(fields)
  }
}

/** Whether `headers`' content type includes `wanted` (lower-case), as `text/event-stream` or `json`. */
export function hasContentType(headers: ResponseHeaders, wanted: string): boolean {
  return (headers.get("content-type") ?? "").toLowerCase().includes(wanted)
}

/**
 * `headers` as web `Headers`, for a web `Response` (itself when it is one).
 *
 * @example
 * ```ts
 * const response = new Response(null, { status: 204, headers: webHeaders(head.headers) })
 * ```
 */
export function webHeaders(headers: ResponseHeaders): Headers {
  if (!(headers instanceof FieldList)) return headers
  const out = new Headers()
  const { fields } = headers
  for (let i = 0; i + 1 < fields.length; i += 2) out.append(fields[i]!, fields[i + 1]!)
  return out
}

/**
 * `headers` as the flat list Node's `writeHead` takes (its own fields when it is a
 * {@link FieldList}; a `set-cookie` field per cookie either way).
 *
 * @example
 * ```ts
 * outgoing.writeHead(200, undefined, headerFields(head.headers))
 * ```
 */
export function headerFields(headers: ResponseHeaders): string[] {
  if (headers instanceof FieldList) return headers.fields
  const fields: string[] = []
  // `forEach` gives a `set-cookie` field per cookie too, but joined values for the rest.
  headers.forEach((value, name) => {
    if (name !== "set-cookie") fields.push(name, value)
  })
  for (const cookie of headers.getSetCookie()) fields.push("set-cookie", cookie)
  return fields
}
