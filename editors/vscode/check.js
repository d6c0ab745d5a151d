// "modelcheck: Check this spec": what `modelcheck check <file> --json` printed,
// as the editor shows it.  No `vscode` here, so that node alone can test it
// (tests/lsp/test_vscode_extension.py).
"use strict";

// A property's declaration line; liveness properties may take parameters.
const DECLARATION = /^\s*(?:step\s+invariant|invariant|sometimes|terminal|constraint|liveness)\s+([A-Za-z_][A-Za-z0-9_]*)\b/;

function declarationLines(text) {
  const lines = new Map();
  text.split(/\r?\n/).forEach((line, index) => {
    const found = DECLARATION.exec(line);
    if (found && !lines.has(found[1])) {
      lines.set(found[1], index);
    }
  });
  return lines;
}

function verdictWords(verdict) {
  const steps = verdict.steps === null || verdict.steps === undefined ? "" : ` in ${verdict.steps} steps`;
  if (verdict.kind === "sometimes") {
    // For `sometimes`, holding means a witness was reached.
    if (verdict.status === "holds") return `reachable${steps}`;
    if (verdict.status === "violated") return "never reachable";
  }
  const words = { holds: "holds", violated: `violated${steps}`,
                  unknown: "unknown", holds_up_to_bound: "holds up to the bound" };
  const text = words[verdict.status] || verdict.status;
  return verdict.reason ? `${text} (${verdict.reason})` : text;
}

// Diagnostics use 0-based lines and columns, as VS Code does.  `level` is
// "error", "warning" or "information".
function summarize(result, text) {
  const lines = [];
  const diagnostics = [];
  const where = declarationLines(text || "");
  if (result.error) {
    const e = result.error;
    const place = e.file ? `${e.file}:${e.line || "?"}:${e.col || "?"}: ` : "";
    lines.push(`error${e.code ? `[${e.code}]` : ""}: ${place}${e.message}`);
    if (e.hint) lines.push(`  hint: ${e.hint}`);
    if (e.trace_file) lines.push(`  trace: ${e.trace_file}`);
    diagnostics.push({ line: Math.max((e.line || 1) - 1, 0), col: Math.max((e.col || 1) - 1, 0),
                       level: "error", message: e.message + (e.hint ? `\nhint: ${e.hint}` : ""),
                       code: e.code || undefined });
  }
  const consts = Object.entries(result.consts || {}).map(([k, v]) => `${k}=${v}`).join(" ");
  if (result.model) {
    lines.push(`${result.model}  (engine ${result.engine}${consts ? `; consts ${consts}` : ""})`);
  }
  const counts = { holds: 0, violated: 0, other: 0 };
  for (const [name, verdict] of Object.entries(result.properties || {})) {
    const words = verdictWords(verdict);
    lines.push(`  ${name}  ${verdict.kind}  ${words}${verdict.trace_file ? `  ${verdict.trace_file}` : ""}`);
    const bad = verdict.status === "violated";
    counts[bad ? "violated" : verdict.status === "holds" ? "holds" : "other"] += 1;
    if (bad || verdict.status === "unknown") {
      const trace = verdict.trace_file ? `\ntrace: ${verdict.trace_file}` : "";
      diagnostics.push({ line: where.has(name) ? where.get(name) : 0, col: 0,
                         level: bad ? "warning" : "information",
                         message: `${name}: ${verdict.kind} ${words}${trace}`,
                         code: undefined });
    }
  }
  if (result.model) {
    lines.push(`${result.distinct_states} distinct states, ${result.generated_states} generated, ` +
               `depth ${result.depth}, ${result.elapsed_s} s${result.complete ? "" : " (incomplete)"}`);
  }
  for (const note of result.notes || []) lines.push(`note: ${note}`);
  if (result.reason && !result.error) lines.push(`stopped: ${result.reason}`);

  const total = Object.keys(result.properties || {}).length;
  let level = "information";
  let message;
  if (result.error) {
    level = "error";
    message = `modelcheck: ${result.error.message}`;
  } else if (counts.violated) {
    level = "warning";
    const names = Object.entries(result.properties)
      .filter(([, v]) => v.status === "violated").map(([n]) => n).join(", ");
    message = `modelcheck: ${result.model}: ${counts.violated} of ${total} violated (${names})`;
  } else if (counts.other) {
    message = `modelcheck: ${result.model}: ${counts.holds} of ${total} hold, ${counts.other} not decided`;
  } else {
    message = `modelcheck: ${result.model}: all ${total} hold (${result.distinct_states} states)`;
  }
  return { lines, diagnostics, level, message };
}

module.exports = { summarize, declarationLines, verdictWords };
