import { expect, inject, it } from "vitest";
import { inDocument } from "./readme-modules.js";

// Every TypeScript block of every document, and every JavaScript one (each is a program), is a module of the
// consumer project, type-checked with it against the installed packages (global-setup.ts). A fragment
// declares what it takes as given: `declare const agent: Agent;`.
const modules = inject("readmeModules");

it.each(modules.map((m) => ({ ...m, where: `${m.document}:${m.line}` })))(
  "$where ($language) compiles as a module of its own under the consumer's strict tsconfig",
  (module) => {
    const diagnostics = inject("diagnostics")[module.source] ?? [];
    expect(diagnostics.map((d) => inDocument(module, d))).toEqual([]);
  },
);
