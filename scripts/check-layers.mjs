#!/usr/bin/env node
// Fails, naming file and line, on an import or package.json dependency that breaks the
// layers (apps ─▶ orchestration, workspace ─▶ turn-runner ─▶ providers, ttsr, extensions-api ─▶
// session-store; apps ─▶ html-export ─▶ session-store; an app never imports another app),
// an app's non-test source importing other than orchestration, workspace, session-store(-postgres)
// and html-export, a src/ file importing from test/, and process.env or console in packages/*/src.
// Usage: node scripts/check-layers.mjs [--root <repository>]   (Node built-ins only)
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkRepository, isDirectory } from "./layers/check-repository.mjs";

const args = process.argv.slice(2);
const rootAt = args.indexOf("--root");
const root =
  rootAt === -1
    ? join(dirname(fileURLToPath(import.meta.url)), "..")
    : resolve(args[rootAt + 1] ?? "");
if (!isDirectory(root) || (rootAt !== -1 && args[rootAt + 1] === undefined)) {
  console.error(
    `check-layers: --root must name the repository folder (got "${args[rootAt + 1] ?? ""}")`,
  );
  process.exit(2);
}

const { violations, files } = checkRepository(root);
for (const { file, line, message } of violations) console.error(`${file}:${line}: ${message}`);
if (violations.length > 0) {
  console.error(`check-layers: ${violations.length} violation(s) in ${files} files`);
  process.exit(1);
}
console.log(`check-layers: ${files} files, no violations`);
