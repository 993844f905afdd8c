import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    // The type tests (`*.test-d.ts`, expectTypeOf) run with the others: tsc checks them, and a type that
    // is not what a test expects fails the run as an assertion would.
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
