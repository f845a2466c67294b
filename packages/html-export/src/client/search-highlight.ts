const MAX_MARKS = 500;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Removes the marks {@link markMatches} added. */
export function clearMatches(root: HTMLElement): void {
  const marks = root.querySelectorAll("mark.hit");
  if (marks.length === 0) return;
  for (const mark of marks) mark.replaceWith(mark.textContent ?? "");
  root.normalize();
}

/**
 * Marks every occurrence of the search words in an entry's rendered text, and opens the
 * collapsed sections (thinking, tool output) that hold one.
 */
export function markMatches(root: HTMLElement, words: string[]): void {
  clearMatches(root);
  if (words.length === 0) return;
  const pattern = new RegExp(words.map(escapeRegExp).join("|"), "gi");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const hits: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest("header, summary")) continue;
    pattern.lastIndex = 0;
    if (pattern.test((node as Text).data)) hits.push(node as Text);
  }
  let count = 0;
  for (const node of hits) {
    if (count >= MAX_MARKS) break;
    const text = node.data;
    const fragment = document.createDocumentFragment();
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      fragment.append(text.slice(last, match.index));
      const mark = document.createElement("mark");
      mark.className = "hit";
      mark.textContent = match[0];
      fragment.append(mark);
      last = match.index + match[0].length;
      count++;
    }
    fragment.append(text.slice(last));
    const details = node.parentElement?.closest("details");
    node.replaceWith(fragment);
    if (details) details.open = true;
  }
}
