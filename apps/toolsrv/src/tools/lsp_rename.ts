// ollie:tool lsp_rename
// ollie:description Rename a symbol everywhere in the project through its language server. Shows the edit, each
// ollie:description changed line as path:line:col old → new, and writes nothing unless apply is true (each file is then
// ollie:description replaced atomically). Point at the symbol with line and column, or name it with symbol.
// ollie:param path string required  The file, relative to the working directory or absolute
// ollie:param line integer  The line, counting from 1 (as file_read shows it)
// ollie:param column integer  The column on that line, counting from 1
// ollie:param symbol string  A name instead of a column: the one on line when line is given, else where the file declares it
// ollie:param new_name string required  The new name
// ollie:param apply boolean  Write the edit to the files (default false: only show it)
// ollie:param limit integer  At most this many changed lines shown (default 50)
// ollie:tier hot
// ollie:timeout 90
// ollie:companion lsp_broker
import { lspTool } from "./lib/lsp/lsp-tool.js";

await lspTool("rename");
