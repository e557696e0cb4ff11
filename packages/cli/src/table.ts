import { visibleWidth } from "./style.ts"

/**
 * A column of {@link formatTable}.
 *
 * @example
 * ```ts
 * import type { TableColumn } from "@tool-rescue/cli"
 *
 * const count: TableColumn = { header: "leaks", align: "right" }
 * ```
 */
export interface TableColumn {
  readonly header: string
  /** @defaultValue "left" */
  readonly align?: "left" | "right"
}

/**
 * Options of {@link formatTable}.
 *
 * @example
 * ```ts
 * import { createStyle, formatTable, type TableOptions } from "@tool-rescue/cli"
 *
 * const options: TableOptions = { header: createStyle(process.stdout, process.env).bold, indent: "" }
 * formatTable([{ header: "tool" }], [["read_file"]], options)
 * ```
 */
export interface TableOptions {
  /** Applied to the header row (e.g. `style.bold`). */
  readonly header?: (text: string) => string
  /** Text before each row. @defaultValue two spaces */
  readonly indent?: string
}

/**
 * Lays `rows` out in aligned columns under a header and a rule, one line per row. Cells may carry
 * colour codes; widths count visible columns only. The last column is not padded.
 *
 * @example
 * ```ts
 * import { formatTable } from "@tool-rescue/cli"
 *
 * formatTable([{ header: "format" }, { header: "leaks", align: "right" }], [["qwen3-coder", "3"]])
 * // "  format       leaks\n  ───────────  ─────\n  qwen3-coder      3\n"
 * ```
 */
export function formatTable(
  columns: readonly TableColumn[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string {
  const indent = options.indent ?? "  "
  const header = options.header ?? ((text: string) => text)
  const widths = columns.map((column, index) =>
    rows.reduce((width, row) => Math.max(width, visibleWidth(row[index] ?? "")), visibleWidth(column.header)),
  )
  const line = (cells: readonly string[], decorate: (text: string) => string = (text) => text): string => {
    const parts = columns.map((column, index) => {
      const cell = cells[index] ?? ""
      const pad = " ".repeat(Math.max(0, widths[index]! - visibleWidth(cell)))
      if (column.align === "right") return pad + cell
      return index === columns.length - 1 ? cell : cell + pad
    })
    return `${indent}${decorate(parts.join("  "))}`.trimEnd()
  }
  const out = [
    line(
      columns.map((column) => column.header),
      header,
    ),
  ]
  out.push(`${indent}${widths.map((width) => "─".repeat(width)).join("  ")}`)
  for (const row of rows) out.push(line(row))
  return `${out.join("\n")}\n`
}
