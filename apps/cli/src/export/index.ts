export { MAX_FILE_NAME_BYTES, safeFileName } from "@arbor/html-export";
export { type WriteExportOptions, writeExportFile } from "./write-export-file.js";
