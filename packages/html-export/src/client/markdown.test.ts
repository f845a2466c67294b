import { describe, expect, it } from "vitest";
import { renderMarkdown, safeHref } from "./markdown.js";

describe("renderMarkdown", () => {
  it("escapes raw HTML instead of rendering it", () => {
    const html = renderMarkdown(
      'Hi <img src=x onerror="alert(1)"> and <script>alert(2)</script>\n\n<div>block</div>',
    );
    expect(html).not.toMatch(/<img|<script|<div/i);
    expect(html).toContain("&#60;img src=x onerror=");
    expect(html).toContain("&#60;div&#62;block");
  });

  it("drops javascript: and data: links but keeps web links", () => {
    expect(
      renderMarkdown("[a](javascript:alert(1)) [b](JaVa\tScRiPt:alert(1)) [c](data:text/html,x)"),
    ).not.toMatch(/href/);
    expect(renderMarkdown("[ok](https://example.com)")).toContain('href="https://example.com"');
    expect(safeHref(" javascript:x")).toBeUndefined();
    expect(safeHref("#entry-1")).toBe("#entry-1");
  });

  it("never loads remote images but shows inline data images", () => {
    expect(renderMarkdown("![logo](https://example.com/a.png)")).not.toContain("<img");
    expect(renderMarkdown("![dot](data:image/png;base64,iVBORw0KGgo=)")).toContain(
      '<img src="data:image/png;base64,iVBORw0KGgo="',
    );
  });

  it("highlights fenced code in known languages and escapes the rest", () => {
    expect(renderMarkdown("```ts\nconst x = 1;\n```")).toContain(
      '<span class="hljs-keyword">const</span>',
    );
    expect(renderMarkdown("```nolang\n<b>x</b>\n```")).toContain("&#60;b&#62;x&#60;/b&#62;");
  });
});
