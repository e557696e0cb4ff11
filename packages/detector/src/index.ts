export { createDetector } from "./create-detector.ts"
export { FORMAT_IDS, type FormatId } from "./format-ids.ts"
export { formats } from "./format-info.ts"
export { isRecoverable } from "./is-recoverable.ts"
export { scan } from "./scan.ts"
export type {
  Detector,
  DetectorOptions,
  DetectorResult,
  FormatInfo,
  Markup,
  Policy,
} from "./types.ts"
