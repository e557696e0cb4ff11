/**
 * Character codes (UTF-16 code units) the scanners and grammars compare against: a leaf module,
 * imported by the states, the compiler, the scanner and the pattern interpreter alike.
 */
export const TAB = 9
export const LF = 10
export const CR = 13
export const SPACE = 32
export const QUOTE = 34 // '"'
export const APOSTROPHE = 39 // "'"
export const LPAREN = 40 // "("
export const RPAREN = 41 // ")"
export const COMMA = 44 // ","
export const COLON = 58 // ":"
export const EQUALS = 61 // "="
export const LBRACKET = 91 // "["
export const BACKSLASH = 92 // "\"
export const RBRACKET = 93 // "]"
export const BACKTICK = 96 // "`"
export const LT = 60 // "<"
export const SLASH = 47 // "/"
export const GT = 62 // ">"
export const LBRACE = 123 // "{"
export const RBRACE = 125 // "}"
export const TILDE = 126 // "~"

export const HYPHEN = 45 // "-"
export const DOT = 46 // "."
export const UNDERSCORE = 95 // "_"
export const DEL = 127

/** `a`–`z` or `A`–`Z`. */
export function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90)
}

/** `0`–`9`. */
export function isAsciiDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

/** Longest XML namespace prefix accepted before a namespaced tag's name (`antml`, `x`, `tool`). */
export const MAX_XML_PREFIX = 32

/** A character of an XML namespace prefix (`[A-Za-z0-9_-]`). */
export function isXmlPrefixPart(c: number): boolean {
  return isAsciiLetter(c) || isAsciiDigit(c) || c === UNDERSCORE || c === HYPHEN
}
