import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: new URL("../../..", import.meta.url).pathname,
    include: ["test/e2e/**/*.e2e.test.ts"],
    globalSetup: ["test/e2e/harness/global-setup.ts"],
    pool: "forks",
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
