import { defineConfig, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.ts"

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      name: "detector",
      coverage: {
        provider: "v8",
        include: ["src/**/*.ts"],
        exclude: ["src/types.ts", "src/index.ts"],
        reporter: ["text-summary", "text"],
        // Issue 3: line coverage of the package ≥ 95%.
        thresholds: { lines: 95, statements: 90, functions: 95, branches: 85 },
      },
    },
  }),
)
