import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Packing and installing happen once, before any test file runs.
    globalSetup: ["src/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
