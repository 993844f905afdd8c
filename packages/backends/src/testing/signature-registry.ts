import type { MockProvider } from "./mock-provider.js";

/**
 * Every reasoning signature the mock handed out, with the provider and model it was issued for. Real
 * providers sign reasoning and refuse a signature made up by the client, or issued by another model or
 * vendor; the mock refuses the same replays by remembering what it issued.
 */
export class SignatureRegistry {
  /** Signature → the provider/model pairs it was issued for (a scripted signature may be reused). */
  private readonly owners = new Map<string, Set<string>>();
  private issued = 0;

  /**
   * Records a signature for `provider` and `model` and returns it: `given` (a script's own signature) or,
   * without one, a fresh one no earlier reply carried.
   */
  issue(provider: MockProvider, model: string, given?: string): string {
    const signature =
      given ?? Buffer.from(`mock:${provider}:${model}:${++this.issued}`, "utf8").toString("base64");
    const owners = this.owners.get(signature) ?? new Set<string>();
    owners.add(ownerKey(provider, model));
    this.owners.set(signature, owners);
    return signature;
  }

  /** Whether `signature` was issued by this mock for exactly this provider and model. */
  accepts(provider: MockProvider, model: string, signature: unknown): boolean {
    if (typeof signature !== "string") return false;
    return this.owners.get(signature)?.has(ownerKey(provider, model)) ?? false;
  }
}

const ownerKey = (provider: MockProvider, model: string) => `${provider}\u0000${model}`;
