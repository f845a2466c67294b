import { describe, expect, it } from "vitest";
import { renderInterrupt } from "./render-interrupt.js";

describe("renderInterrupt", () => {
  it("renders one block per rule with the path relative to the project root", () => {
    const out = renderInterrupt(
      [
        { name: "no-any", path: "/repo/.arbor/rules/no-any.md", content: "Do not use `any`.\n" },
        { name: "home", path: "/home/me/.arbor/rules/home.md", content: "Be brief." },
      ],
      { projectRoot: "/repo" },
    );
    expect(out).toMatchInlineSnapshot(`
      "<system-interrupt reason="rule_violation" rule="no-any" path=".arbor/rules/no-any.md">
      Your output was stopped by this project's rule enforcement: it matched the rule below. This is an automatic check, not a message from the user. Follow the rule and continue.

      Do not use \`any\`.
      </system-interrupt>

      <system-interrupt reason="rule_violation" rule="home" path="/home/me/.arbor/rules/home.md">
      Your output was stopped by this project's rule enforcement: it matched the rule below. This is an automatic check, not a message from the user. Follow the rule and continue.

      Be brief.
      </system-interrupt>"
    `);
  });

  it("escapes attribute values", () => {
    const out = renderInterrupt([{ name: 'a"b<c>&', path: "x\ny", content: "body" }], {
      projectRoot: "/repo",
    });
    expect(out.split("\n")[0]).toBe(
      '<system-interrupt reason="rule_violation" rule="a&quot;b&lt;c&gt;&amp;" path="x&#10;y">',
    );
  });
});
