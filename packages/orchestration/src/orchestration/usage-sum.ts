import type { Usage } from "@arbor/providers";

/** No tokens. */
export const NO_USAGE: Readonly<Usage> = Object.freeze({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
});

/** The sum of token counts. */
export function addUsage(...usages: readonly Usage[]): Usage {
  const sum = { ...NO_USAGE };
  for (const usage of usages) {
    sum.input += usage.input;
    sum.output += usage.output;
    sum.cacheRead += usage.cacheRead;
    sum.cacheWrite += usage.cacheWrite;
  }
  return sum;
}
