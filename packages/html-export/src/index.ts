export { ClientAssetMissingError } from "./client-asset.js";
export { embedJson } from "./embed-json.js";
export { type ExportHtmlOptions, exportFileToHtml, exportSessionToHtml } from "./export-html.js";
export {
  buildPageData,
  type EntryMark,
  type PageData,
  type UsageTotals,
} from "./page-data.js";
export { readSessionSnapshot, snapshotOfSession } from "./read-session-file.js";
export type {
  SessionSnapshot,
  SessionSnapshotEntry,
  SessionSnapshotHeader,
} from "./session-snapshot.js";
