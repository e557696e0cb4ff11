export { createDetector } from "./create-detector.ts"
export { formats } from "./format-info.ts"
export { isRecoverable } from "./is-recoverable.ts"
export { scan } from "./scan.ts"
export type {
  Detector,
  DetectorOptions,
  DetectorResult,
  FormatId,
  FormatInfo,
  Markup,
  Policy,
} from "./types.ts"
