/**
 * `tool-rescue report --html FILE`: one self-contained page. Everything is inline — styles, charts
 * as SVG, the data as a JSON block — and nothing is fetched, so the page opens from a mail
 * attachment or an air-gapped machine and reads the same without JavaScript (there is none).
 */
import { formatCount, formatPercent } from "../text.ts"
import { type Count, type ModelFigures, modelTotals, type ReportData } from "./report-data.ts"

/** Colours for formats in chart order; formats past the palette share the last (grey). */
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
] as const

const OUTCOME_COLOURS: ReadonlyMap<string, string> = new Map([
  ["retried", "#59a14f"],
  ["repeated", "#e15759"],
  ["truncated", "#f28e2b"],
  ["not-offered", "#b07aa1"],
  ["unknown", "#bab0ac"],
])

/** Text for HTML content and attribute values. */
function esc(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
}

const pct = (value: number | null): string => (value === null ? "–" : `${(value * 100).toFixed(1)}%`)

/** The label of bucket `index` (date, and hour when buckets are shorter than a day). */
function bucketLabel(data: ReportData, index: number): string {
  const start = Date.parse(data.timeline.start ?? "")
  const at = new Date(start + index * data.timeline.bucketHours * 3_600_000).toISOString()
  return data.timeline.bucketHours % 24 === 0 ? at.slice(0, 10) : `${at.slice(0, 10)} ${at.slice(11, 16)}`
}

/** Stacked bars: one bar per time bucket, one segment per format. */
function timelineChart(data: ReportData, model: ModelFigures, colours: ReadonlyMap<string, string>): string {
  const series = data.timeline.series.filter((entry) => entry.model === model.model)
  const buckets = data.timeline.buckets
  if (buckets === 0 || series.length === 0) return `<p class="none">No record of this model has a time.</p>`
  const totals = modelTotals(data.timeline, model.model)
  const max = Math.max(1, ...totals)
  const width = 720
  const height = 200
  const left = 40
  const bottom = 24
  const plot = height - bottom - 8
  const step = (width - left - 8) / buckets
  const bar = Math.max(1, step * 0.8)
  const parts: string[] = []
  parts.push(
    `<svg class="chart timeline" data-model="${esc(model.model)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(`Leaks of ${model.model} by format over time`)}">`,
  )
  parts.push(`<title>${esc(`Leaks of ${model.model} by format over time`)}</title>`)
  // Axis: zero line and the maximum.
  parts.push(`<line x1="${left}" y1="${8 + plot}" x2="${width - 8}" y2="${8 + plot}" class="axis"/>`)
  parts.push(`<text x="${left - 4}" y="${8 + plot}" class="tick" text-anchor="end">0</text>`)
  parts.push(`<text x="${left - 4}" y="16" class="tick" text-anchor="end">${formatCount(max)}</text>`)
  for (let i = 0; i < buckets; i++) {
    let y = 8 + plot
    const x = left + i * step + (step - bar) / 2
    for (const entry of series) {
      const n = entry.counts[i] ?? 0
      if (n === 0) continue
      const h = (n / max) * plot
      y -= h
      parts.push(
        `<rect class="bar" x="${x.toFixed(2)}" y="${y.toFixed(2)}" width="${bar.toFixed(2)}" height="${h.toFixed(2)}" fill="${colours.get(entry.format) ?? PALETTE[PALETTE.length - 1]}" data-format="${esc(entry.format)}" data-bucket="${i}" data-count="${n}"><title>${esc(`${bucketLabel(data, i)} · ${entry.format}: ${formatCount(n)}`)}</title></rect>`,
      )
    }
  }
  parts.push(`<text x="${left}" y="${height - 6}" class="tick">${esc(bucketLabel(data, 0))}</text>`)
  if (buckets > 1)
    parts.push(
      `<text x="${width - 8}" y="${height - 6}" class="tick" text-anchor="end">${esc(bucketLabel(data, buckets - 1))}</text>`,
    )
  parts.push("</svg>")
  const legend = series
    .map(
      (entry) =>
        `<li><span class="swatch" style="background:${colours.get(entry.format) ?? PALETTE[PALETTE.length - 1]}"></span>${esc(entry.format)} <span class="n">${formatCount(entry.counts.reduce((a, b) => a + b, 0))}</span></li>`,
    )
    .join("")
  return `${parts.join("")}<ul class="legend">${legend}</ul>`
}

/** Horizontal bars, one per outcome. */
function outcomeChart(model: ModelFigures): string {
  const width = 720
  const row = 22
  const left = 110
  const max = Math.max(1, ...model.outcomes.map((outcome) => outcome.records))
  const height = row * model.outcomes.length + 4
  const parts = [
    `<svg class="chart outcomes" data-model="${esc(model.model)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(`Outcomes of ${model.model}`)}">`,
    `<title>${esc(`Outcomes of ${model.model}`)}</title>`,
  ]
  model.outcomes.forEach((outcome, i) => {
    const w = Math.max(1, (outcome.records / max) * (width - left - 80))
    const y = 2 + i * row
    parts.push(
      `<text x="${left - 6}" y="${y + 15}" class="label" text-anchor="end">${esc(outcome.name)}</text>`,
      `<rect class="outcome" x="${left}" y="${y + 3}" width="${w.toFixed(2)}" height="${row - 6}" fill="${OUTCOME_COLOURS.get(outcome.name) ?? "#79706e"}" data-outcome="${esc(outcome.name)}" data-count="${outcome.records}"><title>${esc(`${outcome.name}: ${formatCount(outcome.records)}`)}</title></rect>`,
      `<text x="${(left + w + 6).toFixed(2)}" y="${y + 15}" class="label">${formatCount(outcome.records)} (${formatPercent(outcome.records, model.records)})</text>`,
    )
  })
  parts.push("</svg>")
  return parts.join("")
}

function countTable(caption: string, header: string, list: readonly Count[], total: number): string {
  const rows = list
    .map(
      (count) =>
        `<tr><td>${esc(count.name)}</td><td class="num">${formatCount(count.records)}</td><td class="num">${formatPercent(count.records, total)}</td></tr>`,
    )
    .join("")
  return `<table><caption>${esc(caption)}</caption><thead><tr><th>${esc(header)}</th><th class="num">leaks</th><th class="num">share</th></tr></thead><tbody>${rows}</tbody></table>`
}

function modelSection(data: ReportData, model: ModelFigures, colours: ReadonlyMap<string, string>): string {
  const figures: [string, string][] = [
    ["leaks", formatCount(model.records)],
    ["retries", formatCount(model.recovery.retries)],
    ["recovered", `${formatCount(model.recovery.recovered)} (${pct(model.recovery.rate)})`],
  ]
  if (model.requestsWithTools !== null)
    figures.push([
      "leak rate",
      `${pct(model.leakRate)} of ${formatCount(model.requestsWithTools)} requests with tools`,
    ])
  if (model.first !== null) figures.push(["first / last", `${model.first} / ${model.last}`])
  return [
    `<section class="model" data-model="${esc(model.model)}">`,
    `<h2>${esc(model.model)}</h2>`,
    `<dl>${figures.map(([term, value]) => `<dt>${esc(term)}</dt><dd>${esc(value)}</dd>`).join("")}</dl>`,
    `<h3>Leaks by format over time</h3>`,
    timelineChart(data, model, colours),
    `<h3>Outcomes</h3>`,
    outcomeChart(model),
    `<div class="tables">`,
    countTable("Formats", "format", model.formats, model.records),
    countTable("Leaked tools", "tool", model.tools, model.records),
    `</div>`,
    `</section>`,
  ].join("\n")
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:780px;padding:0 1rem;color:#222}
h1{font-size:1.4rem}h2{font-size:1.2rem;margin-top:2.5rem;border-bottom:1px solid #ddd}h3{font-size:1rem;margin:1.2rem 0 .4rem}
dl{display:grid;grid-template-columns:max-content auto;gap:.1rem 1rem}dt{color:#666}dd{margin:0}
table{border-collapse:collapse;margin:.6rem 1.2rem .6rem 0;display:inline-table;vertical-align:top}
caption{text-align:left;font-weight:600}td,th{padding:.15rem .6rem;border-bottom:1px solid #eee;text-align:left}
.num{text-align:right;font-variant-numeric:tabular-nums}.chart{max-width:100%;height:auto;display:block}
.axis{stroke:#999}.tick,.label{font-size:11px;fill:#555}.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem 1rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-1px}.n{color:#666}
.none{color:#666;font-style:italic}footer{margin-top:3rem;color:#666;font-size:12px}
`

/**
 * The report as one self-contained HTML page: a chart per model of leaks by format over time and
 * of the outcomes, the tables of the terminal report, and the report's JSON in a
 * `<script type="application/json" id="report-data">` block (data, not code).
 *
 * @example
 * ```ts
 * await writeFile("report.html", renderReportHtml(data, new Date()))
 * ```
 */
export function renderReportHtml(data: ReportData, generated: Date): string {
  const colours = new Map<string, string>()
  data.formats.forEach((format, i) => {
    colours.set(format.name, PALETTE[Math.min(i, PALETTE.length - 1)]!)
  })
  const rowTable = `<table class="rows"><caption>Every record, by model, format and outcome</caption><thead><tr><th>model</th><th>format</th><th>outcome</th><th class="num">leaks</th></tr></thead><tbody>${data.rows
    .map(
      (row) =>
        `<tr><td>${esc(row.model)}</td><td>${esc(row.format)}</td><td>${esc(row.outcome)}</td><td class="num">${formatCount(row.records)}</td></tr>`,
    )
    .join("")}</tbody></table>`
  const malformed =
    data.malformedLines === 0
      ? ""
      : `<h2>Malformed lines (${formatCount(data.malformedLines)}, skipped)</h2><ul>${data.malformed
          .map((line) => `<li><code>${esc(line.file)}:${line.line}</code> ${esc(line.reason)}</li>`)
          .join("")}</ul>`
  // `<` escaped so the JSON can never close its script element.
  const json = JSON.stringify(data).replace(/</g, "\\u003c")
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tool-rescue report</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Tool calls leaked as text</h1>
<p>${esc(`${formatCount(data.records)} leaks in ${data.files.map((file) => file.file).join(", ")}`)}${data.since === null ? "" : esc(` since ${data.since}`)} · recovery ${esc(
    data.recovery.retries === 0
      ? "– (no retry in the log)"
      : `${formatCount(data.recovery.recovered)} of ${formatCount(data.recovery.retries)} retries (${pct(data.recovery.rate)})`,
  )}</p>
<div class="tables">
${countTable("Formats", "format", data.formats, data.records)}
${countTable("Outcomes", "outcome", data.outcomes, data.records)}
${countTable("Leaked tools", "tool", data.tools, data.records)}
</div>
${data.models.map((model) => modelSection(data, model, colours)).join("\n")}
<h2>All records</h2>
${rowTable}
${malformed}
<footer>Generated ${esc(generated.toISOString())} by tool-rescue report.</footer>
<script type="application/json" id="report-data">${json}</script>
</body>
</html>
`
}
