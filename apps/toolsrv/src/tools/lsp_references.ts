// ollie:tool lsp_references
// ollie:description List every reference to a symbol in the project (the declaration included), through its language
// ollie:description server. Point at it with line and column, or name it with symbol. One path:line:col and the line
// ollie:description there per reference; limit bounds how many (default 50).
// ollie:param path string required  The file, relative to the working directory or absolute
// ollie:param line integer  The line, counting from 1 (as file_read shows it)
// ollie:param column integer  The column on that line, counting from 1
// ollie:param symbol string  A name instead of a column: the one on line when line is given, else where the file declares it
// ollie:param limit integer  At most this many references (default 50)
// ollie:parallel read
// ollie:tier warm
// ollie:timeout 90
// ollie:companion lsp_broker
import { lspTool } from "./lib/lsp/lsp-tool.js";

await lspTool("references");
