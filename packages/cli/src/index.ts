// The programmatic face of the CLI: each command as a function of (argv, io), and the output
// helpers they share. The `tool-rescue` bin is `main(process.argv.slice(2), processIo())`.

export { CliError, ExitCode, type ExitCodeValue, isCliError } from "./cli-error.ts"
export { runDemo } from "./demo-command.ts"
export { demoHelp, overviewHelp, probeHelp, reportHelp, scanHelp, serveHelp } from "./help.ts"
export { type CliIo, type OutputStream, processIo } from "./io.ts"
export { main } from "./main.ts"
export { runProbe } from "./probe-command.ts"
export { createProgressLine, type ProgressLine, progressBar } from "./progress.ts"
export { runReport } from "./report-command.ts"
export { runScan } from "./scan-command.ts"
export { runServe } from "./serve-command.ts"
export { colorEnabled, createStyle, type Style, visibleWidth } from "./style.ts"
export { formatTable, type TableColumn, type TableOptions } from "./table.ts"
export { excerpt, formatBytes, formatCount, formatMs, formatPercent, oneLine } from "./text.ts"
export { cliVersion } from "./version.ts"
