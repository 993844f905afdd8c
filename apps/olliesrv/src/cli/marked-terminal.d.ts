// marked-terminal ships no types, and @types/marked-terminal pins a marked five majors old: what ollie uses of it.
declare module "marked-terminal" {
  import type { MarkedExtension } from "marked";

  export interface TerminalRendererOptions {
    width?: number;
    reflowText?: boolean;
    showSectionPrefix?: boolean;
    emoji?: boolean;
    tab?: number | string;
  }

  export function markedTerminal(
    options?: TerminalRendererOptions,
    highlightOptions?: object,
  ): MarkedExtension;
}
