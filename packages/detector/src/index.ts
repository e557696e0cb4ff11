export type { Detector, DetectorOptions, DetectorResult, FormatId, Markup, Policy } from "./types.ts"
