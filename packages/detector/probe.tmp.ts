import fc from "fast-check"
import { scan, createDetector } from "@tool-rescue/detector"
const tools = ["read_file"]
const call = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>'
const piece = fc.constantFrom(">", "> ", " ", "   ", "`", "```", "~~~", "````", "- ", "1. ", "\n", "\r\n", "\n\n", "x", "<pre>", "</pre>", call, "<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>", "\t", "<think>", "</think>", "*")
const doc = fc.array(piece, { maxLength: 30 }).map((a) => a.join(""))
fc.assert(
  fc.property(doc, fc.array(fc.nat(), { maxLength: 8 }), (text, cutsRaw) => {
    const whole = scan(text, { tools })
    const cuts = [...new Set(cutsRaw.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
    const d = createDetector({ tools })
    let out = ""; const mk: unknown[] = []; let prev = 0
    for (const c of [...cuts, text.length]) { const r = d.push(text.slice(prev, c)); prev = c; out += r.text; mk.push(...r.markup) }
    const e = d.end(); out += e.text; mk.push(...e.markup)
    if (out !== whole.text || JSON.stringify(mk) !== JSON.stringify(whole.markup)) throw new Error("split differs")
    // lossless
    let re = ""; let at = 0; let ti = 0
    const spans = [...whole.markup].sort((a, b) => a.start - b.start)
    for (const m of spans) { re += whole.text.slice(ti, ti + (m.start - at)); ti += m.start - at; re += text.slice(m.start, m.end); at = m.end }
    re += whole.text.slice(ti)
    if (re !== text) throw new Error("lossy")
  }),
  { numRuns: 30000 },
)
console.log("ok")
