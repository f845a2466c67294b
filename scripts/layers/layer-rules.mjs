// The layers of docs' architecture: imports only go down this list, never up, never
// sideways within a layer; an app never imports another app.
//
//   apps ─▶ orchestration, workspace ─▶ turn-runner ─▶ providers, ttsr, extensions-api ─▶ session-store
//   apps ─▶ html-export ─▶ session-store
//   session-store-postgres ─▶ session-store
//
// An app's shipped code (src/, not test files) imports only APP_IMPORTS; its tests (test
// files, anything outside src/, devDependencies) may also import the lower packages and
// their ./test kits.

/** The package layers, bottom first; a package may import any package of a lower layer. */
export const LAYERS = [
  ["@arbor/session-store"],
  ["@arbor/providers", "@arbor/ttsr", "@arbor/extensions-api"],
  ["@arbor/turn-runner"],
  // Side by side: neither imports the other.
  ["@arbor/orchestration", "@arbor/workspace"],
];

/** Packages beside the main stack, each with the only packages it may import. */
export const BESIDE = {
  "@arbor/html-export": ["@arbor/session-store"],
  "@arbor/session-store-postgres": ["@arbor/session-store"],
};

/** The only workspace packages an app's non-test source (and its `dependencies`) may import. */
export const APP_IMPORTS = [
  "@arbor/orchestration",
  "@arbor/workspace",
  "@arbor/session-store",
  "@arbor/session-store-postgres",
  "@arbor/html-export",
];

/**
 * Why `from` may not import `to`, or `undefined` when it may.
 * @param {{ name: string, kind: "package" | "app" }} from the importing workspace member
 * @param {{ name: string, kind: "package" | "app" }} to the imported workspace member
 * @param {{ test?: boolean }} [where] `test`: the import is test code (a test file, a file
 *   outside src/, a devDependency), where an app may also reach the lower packages
 * @returns {string | undefined}
 */
export function importViolation(from, to, where = {}) {
  if (from.name === to.name) return undefined;
  if (to.kind === "app") {
    return from.kind === "app"
      ? `the app ${from.name} imports the app ${to.name} (an app never imports another app)`
      : `${from.name} imports the app ${to.name} (packages never depend on apps)`;
  }
  if (from.kind === "app") {
    if (where.test === true || APP_IMPORTS.includes(to.name)) return undefined;
    return `the app ${from.name} imports ${to.name} outside its tests (an app's source imports only ${APP_IMPORTS.join(", ")}; ask @arbor/orchestration to re-export what it needs)`;
  }
  const allowed = allowedImports(from.name);
  if (allowed === undefined) {
    return `${from.name} has no layer: add it to LAYERS or BESIDE in scripts/layers/layer-rules.mjs`;
  }
  if (allowed.includes(to.name)) return undefined;
  const fromRank = rankOf(from.name);
  const toRank = rankOf(to.name);
  const direction =
    fromRank !== undefined && toRank !== undefined
      ? toRank > fromRank
        ? "upward"
        : toRank === fromRank
          ? "sideways"
          : "outside its layers"
      : "outside its layers";
  const may = allowed.length === 0 ? "nothing of the workspace" : allowed.join(", ");
  return `${from.name} imports ${to.name}, ${direction} (it may import ${may})`;
}

/**
 * The workspace packages a package may import, or `undefined` when it is in no layer.
 * @param {string} name
 * @returns {string[] | undefined}
 */
export function allowedImports(name) {
  if (Object.hasOwn(BESIDE, name)) return BESIDE[name];
  const rank = rankOf(name);
  if (rank === undefined) return undefined;
  return LAYERS.slice(0, rank).flat();
}

function rankOf(name) {
  const rank = LAYERS.findIndex((layer) => layer.includes(name));
  return rank === -1 ? undefined : rank;
}
