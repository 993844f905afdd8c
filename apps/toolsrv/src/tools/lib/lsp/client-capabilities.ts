import type { ClientCapabilities } from "vscode-languageserver-protocol";

/**
 * What the broker tells servers it understands: the requests the lsp_* tools make, plain-text or Markdown
 * hovers, hierarchical document symbols, pushed diagnostics, and workspace edits as document changes.
 */
export const clientCapabilities: ClientCapabilities = {
  general: { positionEncodings: ["utf-16"] },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: false },
    definition: { linkSupport: true },
    references: {},
    hover: { contentFormat: ["plaintext", "markdown"] },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    rename: { prepareSupport: false },
    publishDiagnostics: { relatedInformation: false, versionSupport: true },
  },
  workspace: {
    symbol: {},
    workspaceEdit: { documentChanges: true, resourceOperations: [] },
    workspaceFolders: true,
    configuration: true,
    applyEdit: false,
  },
  window: { workDoneProgress: false },
};
