// Prints, for each file named, what the reference parsers say: one JSON object a line,
// {"file", "tool", "ok", "line", "col", "message"}. Parse only: nothing is run or bundled.
import { readFileSync } from "node:fs";
import { transformSync } from "esbuild";
import ts from "typescript";

const LOADERS = { ts: "ts", mts: "ts", cts: "ts", tsx: "tsx", jsx: "jsx", css: "css" };

function esbuild(file, text, loader) {
  const first = esbuildWith(file, text, loader, {});
  // Parameter decorators (Angular, NestJS) are valid with "experimentalDecorators" in
  // tsconfig.json, as those projects have it: judge them as such a project would.
  if (!first.ok && first.message.includes("experimental decorators are enabled")) {
    const legacy = { compilerOptions: { experimentalDecorators: true } };
    return esbuildWith(file, text, loader, { tsconfigRaw: legacy });
  }
  return first;
}

function esbuildWith(file, text, loader, options) {
  try {
    const result = transformSync(text, { loader, sourcefile: file, logLevel: "silent", ...options });
    const warning = result.warnings.find((w) => w.id === "css-syntax-error");
    if (warning) return verdict("esbuild", warning);
    return { tool: "esbuild", ok: true };
  } catch (error) {
    return verdict("esbuild", error.errors[0]);
  }
}

function verdict(tool, message) {
  const where = message.location ?? { line: 1, column: 0 };
  return { tool, ok: false, line: where.line, col: where.column + 1, message: message.text };
}

function typescript(file) {
  // TypeScript's own parser: the syntactic diagnostics only (no types, no imports).
  const options = { noResolve: true, noLib: true, allowJs: true, jsx: ts.JsxEmit.Preserve };
  const program = ts.createProgram([file], options);
  const errors = program.getSyntacticDiagnostics(program.getSourceFile(file));
  if (errors.length === 0) return { tool: "typescript", ok: true };
  const first = errors[0];
  const { line, character } = first.file.getLineAndCharacterOfPosition(first.start);
  const message = ts.flattenDiagnosticMessageText(first.messageText, "\n");
  return { tool: "typescript", ok: false, line: line + 1, col: character + 1, message };
}

for (const file of process.argv.slice(2)) {
  const extension = file.split(".").pop();
  const loader = LOADERS[extension];
  if (!loader) continue;
  const text = readFileSync(file, "utf8");
  console.log(JSON.stringify({ file, ...esbuild(file, text, loader) }));
  if (loader !== "css") console.log(JSON.stringify({ file, ...typescript(file) }));
}
