// Starts `modelcheck lsp` (see the settings modelcheck.server.command and
// modelcheck.server.args) for .mc files, and runs "modelcheck: Check this
// spec".  The colouring needs none of this.
"use strict";

const childProcess = require("child_process");
const path = require("path");
const vscode = require("vscode");
const { summarize } = require("./check");

let client;

function executable() {
  return vscode.workspace.getConfiguration("modelcheck.server").get("command", "modelcheck");
}

async function startServer(context) {
  const command = executable();
  if (!command) {
    return;
  }
  // Required here, not at the top: with the server off the extension still
  // colours and checks without loading the client.
  const { LanguageClient, TransportKind } = require("vscode-languageclient/node");
  const settings = vscode.workspace.getConfiguration("modelcheck.server");
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

const LEVELS = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
};

function run(command, args, cwd, token) {
  return new Promise((resolve) => {
    // maxBuffer: a spec with many properties and notes prints more than the default 1 MB.
    const child = childProcess.execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ error, stdout, stderr }));
    token.onCancellationRequested(() => child.kill());
  });
}

async function checkSpec(output, diagnostics) {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "modelcheck") {
    vscode.window.showWarningMessage("modelcheck: open a .mc spec to check it");
    return;
  }
  const document = editor.document;
  if (document.isDirty && !(await document.save())) {
    return;
  }
  const command = executable() || "modelcheck";
  const file = document.uri.fsPath;
  const folder = vscode.workspace.getWorkspaceFolder(document.uri);
  // Traces go to counterexamples/ under the workspace folder, as on the command line there.
  const cwd = folder ? folder.uri.fsPath : path.dirname(file);
  const extra = vscode.workspace.getConfiguration("modelcheck.check").get("args", []);
  const args = ["check", file, "--json", ...extra];
  output.appendLine(`$ ${command} ${args.join(" ")}   (in ${cwd})`);
  const ran = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `modelcheck: checking ${path.basename(file)}`,
      cancellable: true },
    (_progress, token) => run(command, args, cwd, token));
  let result;
  try {
    result = JSON.parse(ran.stdout);
  } catch (_) {
    // No JSON: modelcheck is missing, or click refused the arguments.
    const why = ran.error && ran.error.code === "ENOENT"
      ? `'${command}' not found: set modelcheck.server.command to your modelcheck`
      : (ran.stderr || String(ran.error || "no output")).trim();
    output.appendLine(why);
    output.show(true);
    vscode.window.showErrorMessage(`modelcheck: ${why.split("\n")[0]}`);
    return;
  }
  const summary = summarize(result, document.getText());
  for (const line of summary.lines) {
    output.appendLine(line);
  }
  output.appendLine("");
  diagnostics.set(document.uri, summary.diagnostics.map((d) => {
    const line = Math.min(d.line, Math.max(document.lineCount - 1, 0));
    const whole = document.lineAt(line).range;
    const range = whole.with(new vscode.Position(line, Math.min(d.col, whole.end.character)));
    const diagnostic = new vscode.Diagnostic(range, d.message, LEVELS[d.level]);
    diagnostic.source = "modelcheck check";
    if (d.code) diagnostic.code = d.code;
    return diagnostic;
  }));
  const show = { error: vscode.window.showErrorMessage, warning: vscode.window.showWarningMessage,
                 information: vscode.window.showInformationMessage }[summary.level];
  const choice = await show(summary.message, "Show output");
  if (choice === "Show output") {
    output.show(true);
  }
}

async function activate(context) {
  const output = vscode.window.createOutputChannel("modelcheck");
  const diagnostics = vscode.languages.createDiagnosticCollection("modelcheck-check");
  context.subscriptions.push(output, diagnostics);
  context.subscriptions.push(vscode.commands.registerCommand(
    "modelcheck.check", () => checkSpec(output, diagnostics)));
  // An edit makes the last check's verdicts stale.
  context.subscriptions.push(vscode.workspace.onDidChangeTextDocument((event) => {
    if (event.contentChanges.length) diagnostics.delete(event.document.uri);
  }));
  await startServer(context);
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
