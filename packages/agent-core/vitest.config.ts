import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    // Type tests (`*.test-d.ts`, vitest's expectTypeOf) run with the others, checked by tsc.
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] },
  },
});
