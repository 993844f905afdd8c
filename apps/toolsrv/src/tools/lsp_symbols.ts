// ollie:tool lsp_symbols
// ollie:description List symbols through the language server: with path alone, the outline of that file (classes,
// ollie:description functions, methods… nested); with query, the project's symbols whose names match it (path then
// ollie:description picks the project: a file or directory, default the working directory). path:line:col, kind, name.
// ollie:param path string  A file (its outline), or a file or directory of the project to search with query
// ollie:param query string  Search the whole project for symbols matching this name
// ollie:param limit integer  At most this many symbols (default 50)
// ollie:parallel read
// ollie:tier warm
// ollie:timeout 90
// ollie:companion lsp_broker
import { lspTool } from "./lib/lsp/lsp-tool.js";

await lspTool("symbols");
