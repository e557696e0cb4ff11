import { defineConfig, type ViteUserConfig } from "vitest/config"

// Tests resolve workspace packages from their TypeScript source (the `@tool-rescue/source`
// export condition), so no build is needed before `vitest`.
const source = "@tool-rescue/source"

export const shared: ViteUserConfig = defineConfig({
  resolve: { conditions: [source, "module", "browser", "development|production"] },
  ssr: {
    resolve: {
      conditions: [source, "module", "node", "development|production"],
      externalConditions: [source],
    },
  },
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: [new URL("./scripts/vitest-setup.ts", import.meta.url).pathname],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
})
