import { z } from "zod";
import { LIMIT_FORMS, type LimitName, UNLIMITED } from "./limit-values.js";

const paths = z.array(z.string().min(1, "an empty path"));
const ports = z.array(
  z.number().int("a port is a whole number").min(0).max(65535, "a port is at most 65535"),
);

/** A limit as a file may write it: its own form, or "unlimited". */
const limit = (name: LimitName) =>
  z.custom<number | string>(
    (v) => v === UNLIMITED || LIMIT_FORMS[name].parse(v) !== undefined,
    LIMIT_FORMS[name].problem,
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
  general: z
    .strictObject({ best_effort: z.boolean(), ignore_missing: z.boolean(), user_namespaces: z.boolean() })
    .partial()
    .optional(),
  filesystem: z.strictObject({ ro: paths, rox: paths, rw: paths, rwx: paths }).partial().optional(),
  network: z
    .strictObject({ enabled: z.boolean(), unrestricted: z.boolean(), bind_tcp: ports, connect_tcp: ports })
    .partial()
    .optional(),
  limits: z
    .strictObject({
      processes: limit("processes"),
      memory: limit("memory"),
      file_size: limit("file_size"),
      cpu_time: limit("cpu_time"),
    })
    .partial()
    .optional(),
  replace: z.array(z.enum(REPLACEABLE)).optional(),
});

export type PolicyLayer = z.infer<typeof policyLayerSchema>;
