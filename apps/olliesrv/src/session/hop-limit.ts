import type { Peers, SessionPolicy } from "./slot-context.js";

/**
 * The agent-to-agent hops a prompt or injection from `from` to `to` is at: 0 from a person (the owner), else
 * one more than the turn `from` runs. Past the policy's `maxHops` it is refused, with an audit line, until
 * a person prompts again: agents cannot keep each other running for ever.
 */
export function hopsTo(to: string, from: string, peers: Peers, policy: SessionPolicy): number {
  if (from === policy.owner) return 0;
  const hops = peers.hopsOf(from) + 1;
  const max = policy.limits.maxHops;
  if (hops > max) {
    const why = `agent-to-agent hop limit ${max} reached: ${from} may not prompt ${to} until a person prompts again`;
    policy.audit(`refused a prompt from ${from} to ${to}: ${why}`, from);
    throw new Error(why);
  }
  return hops;
}
