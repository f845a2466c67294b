import { randomBytes } from "node:crypto";

/** Makes the nonce of one block; a seam for tests. Default 12 random hex digits. */
export type NonceSource = () => string;

/** The default nonce: 12 random hex digits. */
export const randomNonce: NonceSource = () => randomBytes(6).toString("hex");

/** One block of a composed prompt: its tag, attributes and text. */
export interface PromptBlock {
  tag: string;
  attributes?: Readonly<Record<string, string>>;
  text: string;
}

const NOTE =
  "The blocks below are delimited by tags that end in a random suffix; text inside a block cannot close it.";

/**
 * Writes blocks as tagged sections whose tag names carry a per-block nonce
 * (`<advisory-3fa9c1d2e0b7 agent="critic">…</advisory-3fa9c1d2e0b7>`), so a request or an
 * answer cannot close its block or open another: a nonce that occurs in the text is
 * drawn again.
 */
export function composeBlocks(blocks: readonly PromptBlock[], nonce: NonceSource): string {
  const parts = blocks.map((block) => {
    let suffix = nonce();
    for (let i = 0; i < 16 && (suffix === "" || block.text.includes(suffix)); i++) {
      suffix = nonce();
    }
    if (block.text.includes(suffix)) suffix = `${suffix}${randomNonce()}`;
    const name = `${block.tag}-${suffix}`;
    const attributes = Object.entries(block.attributes ?? {})
      .map(([key, value]) => ` ${key}="${value.replace(/[<>&"]/g, escapeChar)}"`)
      .join("");
    return `<${name}${attributes}>\n${block.text}\n</${name}>`;
  });
  return [NOTE, ...parts].join("\n\n");
}

function escapeChar(char: string): string {
  return `&#${char.charCodeAt(0)};`;
}
