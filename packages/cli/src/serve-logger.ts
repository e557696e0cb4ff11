/**
 * `serve`'s logger: pino, to stderr (stdout carries the listening line scripts read). On a
 * terminal each line is pino-pretty's (time, level, message, then the fields on one line);
 * otherwise a JSON line per event, for a log collector.
 */
import { type LevelWithSilent, type Logger, pino } from "pino"
import pinoPretty from "pino-pretty"
import type { OutputStream } from "./io.ts"

/** The levels `--log-level` takes (pino's). */
export const LOG_LEVELS: readonly LevelWithSilent[] = [
  "trace",
  "debug",
  "info",
  "warn",
  "error",
  "fatal",
  "silent",
]

/**
 * A pino logger writing to `stream`, synchronously (no worker thread): pretty on a terminal
 * (coloured when `color`), JSON lines otherwise.
 */
export function createServeLogger(stream: OutputStream, level: LevelWithSilent, color: boolean): Logger {
  const options = { level, base: null }
  if (stream.isTTY !== true) return pino(options, { write: (line: string) => void stream.write(line) })
  const pretty = pinoPretty.prettyFactory({
    colorize: color,
    translateTime: "SYS:HH:MM:ss.l",
    singleLine: true,
  })
  return pino(options, { write: (line: string) => void stream.write(pretty(line)) })
}
