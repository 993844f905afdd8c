import { parseArguments, type ReplyBuilder } from "./reply-builder.js";

interface Slot {
  index: number;
  id: string;
  name: string;
}

/** A piece of a tool call as OpenAI-style streams send it: any field may be missing. */
export interface ToolCallPiece {
  index?: number | undefined;
  id?: string | undefined;
  name?: string | undefined;
  arguments?: string | undefined;
}

/**
 * Puts tool calls together from argument fragments, robust to what servers get wrong: a missing index
 * (route by id, else to the call in progress), one index reused for several calls (a new id starts a new
 * call), and missing ids (made up, stable within the reply). The arguments are parsed once, at the end.
 */
export class ToolCallAssembler {
  private readonly slots: Slot[] = [];
  private readonly byIndex = new Map<number, Slot>();

  accept(piece: ToolCallPiece, out: ReplyBuilder): void {
    const id = piece.id || undefined;
    let slot: Slot | undefined;
    if (piece.index !== undefined) {
      slot = this.byIndex.get(piece.index);
      if (slot && id !== undefined && slot.id !== id) slot = undefined;
    } else if (id !== undefined) {
      slot = this.slots.find((s) => s.id === id);
    } else {
      slot = this.slots[this.slots.length - 1];
    }
    if (!slot) {
      slot = {
        index: this.slots.length,
        id: id ?? `call_${this.slots.length}`,
        name: piece.name ?? "",
      };
      this.slots.push(slot);
      if (piece.index !== undefined) this.byIndex.set(piece.index, slot);
      out.toolCallStart(slot.index, slot.id, slot.name);
    } else if (piece.name && !slot.name) {
      slot.name = piece.name;
    }
    if (piece.arguments) out.toolCallDelta(slot.index, piece.arguments);
  }

  /**
   * Adds an argument fragment to the call already started at `index`, the common case, without the
   * routing `accept` does; false (nothing done) if there is no such call yet.
   */
  continueCall(index: number, fragment: string, out: ReplyBuilder): boolean {
    const slot = this.byIndex.get(index);
    if (!slot) return false;
    out.toolCallDelta(slot.index, fragment);
    return true;
  }

  /** Completes every call (once, in order). */
  finish(out: ReplyBuilder): void {
    for (const slot of this.slots.splice(0)) {
      out.toolCall(slot.index, {
        id: slot.id,
        name: slot.name,
        ...parseArguments(out.takeArguments(slot.index)),
      });
    }
    this.byIndex.clear();
  }
}
