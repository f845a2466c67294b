/**
 * The deepest nesting of arrays and objects in a JSON text, counted without parsing it, so
 * a body nested a million levels deep is refused before `JSON.parse` sees it. Brackets
 * inside strings do not count.
 * @param limit - counting stops once the depth exceeds it
 */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return deepest;
}
