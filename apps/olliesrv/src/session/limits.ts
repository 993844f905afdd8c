/** What agents may do to each other and to the daemon before a person has to step in. */
export interface SessionLimits {
  /** How deep agents may spawn sessions from sessions (a person's session is depth 0). */
  maxDepth: number;
  /** Sessions one agent may have spawned and not yet killed. */
  maxChildren: number;
  /** Sessions the daemon holds at once. */
  maxSessions: number;
  /**
   * Agent-to-agent hops without a person's prompt in between: a prompt an agent writes (to a peer, a child,
   * or a callback to its parent) is one hop past the turn it was written in; past this it is refused.
   */
  maxHops: number;
  /** The longest prompt, in bytes. */
  maxPromptBytes: number;
}

export const DEFAULT_SESSION_LIMITS: Readonly<SessionLimits> = {
  maxDepth: 3,
  maxChildren: 16,
  maxSessions: 512,
  maxHops: 10,
  maxPromptBytes: 1024 * 1024,
};
