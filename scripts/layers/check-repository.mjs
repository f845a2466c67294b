// Walks the workspace members under packages/ and apps/ and lists every layering violation
// with its file and line.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { importViolation } from "./layer-rules.mjs";
import { importsOf, lineOf, scanSource } from "./source-scan.mjs";

const SOURCE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;
const SKIP_DIRS = new Set(["node_modules", "dist", "coverage", ".turbo", ".cache"]);
/** Test code: `x.test.ts`, `x.test-d.ts`, `x.test-util.ts`, `x.spec.ts`, or under `__tests__/`. */
const TEST_FILE = /(?:\.(?:test|spec)(?:-[\w-]+)?\.[cm]?[jt]sx?$)|(?:^|\/)__tests__\//;
const DEPENDENCY_FIELDS = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
];

/**
 * @typedef {{ file: string, line: number, message: string }} Violation
 * @typedef {{ name: string, kind: "package" | "app", dir: string }} Member
 */

/**
 * Checks the workspace at `root` against the layers.
 * @param {string} root the repository root (holding packages/ and apps/)
 * @returns {{ violations: Violation[], files: number }} violations sorted by file and line
 */
export function checkRepository(root) {
  const members = workspaceMembers(root);
  const byName = new Map(members.map((member) => [member.name, member]));
  const violations = [];
  let files = 0;
  for (const member of members) {
    violations.push(...checkManifest(root, member, byName));
    for (const file of sourceFiles(member.dir)) {
      files++;
      violations.push(...checkSource(root, member, members, byName, file));
    }
  }
  violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return { violations, files };
}

/** @returns {Member[]} */
function workspaceMembers(root) {
  const members = [];
  for (const [folder, kind] of [
    ["packages", "package"],
    ["apps", "app"],
  ]) {
    const base = join(root, folder);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      const manifest = join(base, entry.name, "package.json");
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const { name } = JSON.parse(readFileSync(manifest, "utf8"));
      if (typeof name === "string") members.push({ name, kind, dir: join(base, entry.name) });
    }
  }
  return members;
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || SKIP_DIRS.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      yield path;
    }
  }
}

/** A package.json dependency on a workspace member the layers forbid. */
function checkManifest(root, member, byName) {
  const path = join(member.dir, "package.json");
  const text = readFileSync(path, "utf8");
  const manifest = JSON.parse(text);
  const violations = [];
  for (const field of DEPENDENCY_FIELDS) {
    const fieldAt = text.indexOf(`"${field}"`);
    for (const dependency of Object.keys(manifest[field] ?? {})) {
      const target = byName.get(dependency);
      if (target === undefined) continue;
      const message = importViolation(member, target, { test: field === "devDependencies" });
      if (message === undefined) continue;
      const at = text.indexOf(`"${dependency}"`, Math.max(0, fieldAt));
      violations.push({
        file: display(root, path),
        line: lineOf(text, at),
        message: `${field} names ${dependency}: ${message}`,
      });
    }
  }
  return violations;
}

function checkSource(root, member, members, byName, path) {
  const text = readFileSync(path, "utf8");
  const scanned = scanSource(text);
  const inPackage = relative(member.dir, path).split(sep).join("/");
  const isTest = TEST_FILE.test(inPackage);
  const inSrc = inPackage.startsWith("src/");
  const inTestKit = inPackage.startsWith("src/test/");
  const violations = [];
  const report = (offset, message) =>
    violations.push({ file: display(root, path), line: lineOf(text, offset), message });

  for (const { specifier, offset, clause } of importsOf(scanned)) {
    const target = specifier.startsWith(".")
      ? memberOfPath(members, resolve(dirname(path), specifier))
      : byName.get(packageName(specifier));
    if (target !== undefined) {
      const message = importViolation(member, target, { test: isTest || !inSrc });
      if (message !== undefined) report(offset, `${message}: "${specifier}"`);
      if (target !== member && specifier.startsWith(".")) {
        report(offset, `reaches into ${target.name} by a relative path: "${specifier}"`);
      }
    }
    if (inSrc && !isTest) {
      if (specifier.startsWith(".")) {
        const into = relative(member.dir, resolve(dirname(path), specifier))
          .split(sep)
          .join("/");
        if (into === "test" || into.startsWith("test/")) {
          report(
            offset,
            `a src/ file imports from test/: "${specifier}" (test helpers stay out of src/)`,
          );
        } else if (!inTestKit && (into === "src/test" || into.startsWith("src/test/"))) {
          report(offset, `shipped code imports the ./test kit: "${specifier}"`);
        }
      }
      if (!inTestKit && (specifier === "vitest" || specifier.startsWith("vitest/"))) {
        report(
          offset,
          `a src/ file that is not a test imports vitest: move the test helper out of src/`,
        );
      }
    }
    if (member.kind === "package" && inSrc && !isTest && /^(?:node:)?process$/.test(specifier)) {
      if (/\benv\b/.test(clause))
        report(offset, "reads process.env (take an options object from the app)");
    }
  }

  if (member.kind === "package" && inSrc && !isTest) {
    const global = String.raw`(?<![\w$.])(?:(?:globalThis|global)\s*(?:\?\.|\.)\s*)?`;
    const envRead = [
      new RegExp(`${global}process\\s*(?:\\?\\.|\\.)\\s*env(?![\\w$])`, "g"),
      new RegExp(`${global}process\\s*(?:\\?\\.)?\\s*\\[\\s*["'\`]`, "g"),
      new RegExp(
        `\\{[^{}]*(?<![\\w$])env(?![\\w$])[^{}]*\\}\\s*=\\s*${global}process(?![\\w$])`,
        "g",
      ),
    ];
    for (const [index, pattern] of envRead.entries()) {
      for (const match of scanned.code.matchAll(pattern)) {
        if (index === 1) {
          const quote = match.index + match[0].length - 1;
          const key = scanned.strings.find((literal) => literal.start === quote);
          // Only a quoted key other than "env" (`process["argv"]`) is not the environment.
          if (key !== undefined && key.value !== "env") continue;
        }
        report(match.index, "reads process.env (take an options object from the app)");
      }
    }
    const consoleUse = new RegExp(`${global}console\\s*(?:\\?\\.|\\.|\\[)`, "g");
    for (const match of scanned.code.matchAll(consoleUse)) {
      report(match.index, "uses console (packages never print; return or emit it)");
    }
  }
  return violations;
}

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier) {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** The workspace member a path lies in, if any. */
function memberOfPath(members, path) {
  return members.find((member) => path === member.dir || path.startsWith(member.dir + sep));
}

function display(root, path) {
  return relative(root, path).split(sep).join("/");
}

/** Whether a path names a directory (the layering check's root must). */
export function isDirectory(path) {
  return existsSync(path) && statSync(path).isDirectory();
}
