import { parse } from "yaml";

/** A markdown file split into its YAML frontmatter and its body. */
export interface MarkdownWithFrontmatter {
  /** The parsed frontmatter; an empty object when the file has none. */
  data: Record<string, unknown>;
  body: string;
  /** Whether the file started with a frontmatter block at all. */
  hasFrontmatter: boolean;
}

const opening = /^\uFEFF?---[ \t]*\r?\n/;
const closing = /^---[ \t]*$/m;

/**
 * Splits `---`-fenced YAML frontmatter from a markdown body.
 * @throws Error saying what is wrong when the block is unterminated, is not valid YAML or
 *   is not a mapping
 */
export function parseFrontmatter(text: string): MarkdownWithFrontmatter {
  const open = opening.exec(text);
  if (!open) return { data: {}, body: text, hasFrontmatter: false };
  const rest = text.slice(open[0].length);
  const close = closing.exec(rest);
  if (!close) throw new Error("frontmatter has no closing --- line");
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, "");
  let data: unknown;
  try {
    data = parse(yamlText, { maxAliasCount: 50 });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new Error(`frontmatter is not valid YAML: ${reason}`);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new Error("frontmatter must be a mapping of keys to values");
  }
  return { data: data as Record<string, unknown>, body, hasFrontmatter: true };
}
