/**
 * Where one call spends its time inside toolsrv, phase by phase, in milliseconds: kept only when toolsrv
 * was started with timing on (`OLLIE_TOOLSRV_TIMING=1`, or `timing: true` in ToolServerOptions), and then
 * returned with the call's result as `timing`. When it is off no CallTiming exists: every mark is an
 * optional call on `undefined`, which costs nothing measurable.
 */
export class CallTiming {
  private last = performance.now();
  readonly phases: Record<string, number> = {};
  /** Each mark as it was made: the phase, when it ended (performance.now()) and how long this part took. */
  readonly marks: { phase: string; at: number; ms: number }[] = [];

  /** Ends the phase under way, named `phase`, and starts the next. A phase marked twice adds up. */
  mark(phase: string): void {
    const now = performance.now();
    this.phases[phase] = (this.phases[phase] ?? 0) + (now - this.last);
    this.marks.push({ phase, at: now, ms: now - this.last });
    this.last = now;
  }

  /** The phases, rounded to microseconds, in the order they ended. */
  toJSON(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.phases).map(([k, v]) => [k, Math.round(v * 1000) / 1000]));
  }
}

/** Whether an environment asks for per-call timing. */
export const timingRequested = (env: NodeJS.ProcessEnv): boolean =>
  env.OLLIE_TOOLSRV_TIMING !== undefined &&
  env.OLLIE_TOOLSRV_TIMING !== "" &&
  env.OLLIE_TOOLSRV_TIMING !== "0";
