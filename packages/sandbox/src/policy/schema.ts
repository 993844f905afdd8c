import { z } from "zod";

const paths = z.array(z.string().min(1, "an empty path"));
const ports = z.array(
  z.number().int("a port is a whole number").min(0).max(65535, "a port is at most 65535"),
);

/** The keys whose list in a layer replaces the lists of earlier layers instead of adding to them. */
export const REPLACEABLE = [
  "filesystem.ro",
  "filesystem.rox",
  "filesystem.rw",
  "filesystem.rwx",
  "network.bind_tcp",
  "network.connect_tcp",
] as const;

/** One policy file, as written. Every key is optional; unknown keys are errors (they are usually typos). */
export const policyLayerSchema = z.strictObject({
  general: z.strictObject({ best_effort: z.boolean(), ignore_missing: z.boolean() }).partial().optional(),
  filesystem: z.strictObject({ ro: paths, rox: paths, rw: paths, rwx: paths }).partial().optional(),
  network: z
    .strictObject({ enabled: z.boolean(), unrestricted: z.boolean(), bind_tcp: ports, connect_tcp: ports })
    .partial()
    .optional(),
  replace: z.array(z.enum(REPLACEABLE)).optional(),
});

export type PolicyLayer = z.infer<typeof policyLayerSchema>;
