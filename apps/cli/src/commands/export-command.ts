import { resolve } from "node:path";
import { openSessionFile } from "@arbor/session-store";
import { exportJsonl, exportMarkdown } from "@arbor/session-store/import";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { safeFileName, writeExportFile } from "../export/index.js";
import { terminalSafe } from "../output/index.js";
import { asCliError, findSessionFile } from "../session-locator.js";
import { sessionHtmlPage } from "./session-html-page.js";

const FORMATS = ["html", "md", "jsonl"] as const;
type ExportFormat = (typeof FORMATS)[number];

/**
 * `arbor export <session> [out] [--format html|md|jsonl] [--all-branches]`: writes a session
 * as a self-contained HTML page, a Markdown transcript, or a pi JSONL file.
 */
export async function exportCommand(context: CliContext): Promise<number> {
  const { io, args, paths, printer } = context;
  const format = parseFormat(args.format);
  const id = args.positionals[0];
  if (id === undefined) {
    throw new CliError("arbor export needs a session.", {
      hint: "For example: arbor export <id> --format md (ids: arbor sessions list).",
      exitCode: 2,
    });
  }
  const path = await findSessionFile(paths, io.cwd, id);
  const content = await render(context, path, format);
  const given = args.positionals[1];
  const out = resolve(io.cwd, given ?? `${safeFileName(content.id)}.${format}`);
  await writeExportFile(out, content.text, {
    ...(args.force ? { force: true } : {}),
    forceHint: "--force",
  });
  printer.out(`${terminalSafe(out)}\n`);
  return 0;
}

async function render(
  context: CliContext,
  path: string,
  format: ExportFormat,
): Promise<{ id: string; text: string }> {
  if (format === "html") {
    const { id, html } = await sessionHtmlPage(context, path);
    return { id, text: html };
  }
  const session = await openSessionFile(path, { readOnly: true }).catch((error: unknown) => {
    throw asCliError(error);
  });
  try {
    const text =
      format === "md" ? exportMarkdown(session, { allBranches: true }) : exportJsonl(session);
    return { id: session.id, text };
  } finally {
    await session.close();
  }
}

function parseFormat(value: string | undefined): ExportFormat {
  if (value === undefined) return "html";
  if ((FORMATS as readonly string[]).includes(value)) return value as ExportFormat;
  throw new CliError(`--format ${terminalSafe(value)} is not an export format.`, {
    hint: `Use one of: ${FORMATS.join(", ")}.`,
    exitCode: 2,
  });
}
