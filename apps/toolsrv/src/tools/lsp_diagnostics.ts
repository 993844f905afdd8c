// ollie:tool lsp_diagnostics
// ollie:description The language server's errors and warnings for a file as it is on disk now (after your edits):
// ollie:description path:line:col, severity, code and message, and the line. Waits (up to 10 s) for the server to check it.
// ollie:param path string required  The file, relative to the working directory or absolute
// ollie:param limit integer  At most this many problems (default 50)
// ollie:parallel read
// ollie:tier warm
// ollie:timeout 90
// ollie:companion lsp_broker
import { lspTool } from "./lib/lsp/lsp-tool.js";

await lspTool("diagnostics");
