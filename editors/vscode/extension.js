// The VS Code client: starts `kriegsspiel lsp` for .ks files (see docs/editors.md).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("kriegsspiel");
  const command = config.get("server.command", "kriegsspiel");
  const args = config.get("server.args", ["lsp"]);
  const serverOptions = { run: { command, args }, debug: { command, args } };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "kriegsspiel" }],
    initializationOptions: { textsDir: config.get("textsDir", "") },
    synchronize: { configurationSection: "kriegsspiel" },
  };
  client = new LanguageClient("kriegsspiel", "Kriegsspiel", serverOptions, clientOptions);
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
