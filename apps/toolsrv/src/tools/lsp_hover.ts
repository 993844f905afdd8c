// ollie:tool lsp_hover
// ollie:description Show the type and documentation of a symbol, as an editor's hover does, through the project's
// ollie:description language server. Point at it with line and column, or name it with symbol.
// ollie:param path string required  The file, relative to the working directory or absolute
// ollie:param line integer  The line, counting from 1 (as file_read shows it)
// ollie:param column integer  The column on that line, counting from 1
// ollie:param symbol string  A name instead of a column: the one on line when line is given, else where the file declares it
// ollie:parallel read
// ollie:tier warm
// ollie:timeout 90
// ollie:companion lsp_broker
import { lspTool } from "./lib/lsp/lsp-tool.js";

await lspTool("hover");
