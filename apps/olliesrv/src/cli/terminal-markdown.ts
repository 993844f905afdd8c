import chalk from "chalk";
import { Marked } from "marked";
import { markedTerminal } from "marked-terminal";
import type { BlockRenderer } from "../frontend/markdown-stream.js";

/**
 * Markdown as a colour terminal shows it (marked, with marked-terminal's renderer): headings, emphasis,
 * lists, quotes, tables and highlighted code, wrapped to `columns`. Loaded only where it is used — `ollie sh`
 * at a colour terminal — since the renderer and its highlighter take time to load that other commands need
 * not spend. `:name:` is left as typed (no emoji), and a heading loses its `#`s. The renderer colours with
 * chalk, whose level is set here: the same chalk as marked-terminal's, pinned to its version.
 */
export function terminalMarkdown(columns: number): BlockRenderer {
  // Whether to colour is sh's to decide (colourWanted), not chalk's guess: it is asked only when colour is.
  chalk.level = Math.max(chalk.level, 1) as typeof chalk.level;
  const width = Math.max(20, Math.min(columns, 120) - 1);
  const marked = new Marked(
    markedTerminal({ width, reflowText: true, showSectionPrefix: false, emoji: false, tab: 2 }),
  );
  return (markdown) => {
    try {
      return marked.parse(markdown, { async: false });
    } catch {
      // A block the renderer cannot take is shown as the model wrote it.
      return markdown;
    }
  };
}
