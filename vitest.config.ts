import { defineConfig } from "vitest/config"

// `pnpm vitest` at the root runs every package as its own project.
export default defineConfig({
  test: { projects: ["packages/*"] },
})
