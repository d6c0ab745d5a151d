// Starts `modelcheck lsp` (see the settings modelcheck.server.command and
// modelcheck.server.args) for .mc files.  The colouring needs none of this.
"use strict";

const vscode = require("vscode");

let client;

async function activate(context) {
  const settings = vscode.workspace.getConfiguration("modelcheck.server");
  const command = settings.get("command", "modelcheck");
  if (!command) {
    return;
  }
  const { LanguageClient, TransportKind } = require("vscode-languageclient/node");
  const server = { command, args: settings.get("args", ["lsp"]), transport: TransportKind.stdio };
  client = new LanguageClient(
    "modelcheck",
    "modelcheck",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "modelcheck" }] }
  );
  context.subscriptions.push(client);
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
