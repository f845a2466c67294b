// Arbor's main job until the CLI lands: a real session-store round trip. It writes a
// branched session to a temporary directory, reopens it from disk and prints its tree.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession, listSessions, openSessionFile } from "@arbor/session-store";

const dir = await mkdtemp(join(tmpdir(), "arbor-demo-"));
const session = await createSession({ dir, cwd: process.cwd() });
const text = (t) => [{ type: "text", text: t }];
const reply = (t) => ({
  role: "assistant",
  content: text(t),
  provider: "demo",
  model: "scripted",
  stopReason: "stop",
  timestamp: Date.now(),
});

const question = await session.appendMessage({
  role: "user",
  content: text("How do I speed up the test suite?"),
  timestamp: Date.now(),
});
await session.appendMessage(reply("Run the packages in parallel with turbo."));
await session.appendLabelChange(question, "first try");
await session.branchWithSummary(question, "Parallel runs were already on; look elsewhere.");
await session.appendMessage(reply("Cache the build outputs so unchanged packages are skipped."));
await session.close();

const reopened = await openSessionFile(session.location, { readOnly: true });
const describe = (entry) => {
  if (entry.type === "message") {
    const content = entry.message.content;
    const body =
      typeof content === "string" ? content : content.map((b) => b.text ?? `[${b.type}]`).join(" ");
    return `${entry.message.role}: ${body}`;
  }
  if (entry.type === "branch_summary") return `branch summary: ${entry.summary}`;
  if (entry.type === "label") return `(label "${entry.label}" set on ${entry.targetId})`;
  return entry.type;
};
const lines = [];
const walk = (nodes, prefix) => {
  nodes.forEach((node, i) => {
    const last = i === nodes.length - 1;
    const onPath = reopened.getBranch().some((e) => e.id === node.entry.id) ? "*" : " ";
    const label = node.label ? ` [${node.label}]` : "";
    lines.push(`${prefix}${last ? "└─" : "├─"}${onPath} ${describe(node.entry)}${label}`);
    walk(node.children, `${prefix}${last ? "   " : "│  "}`);
  });
};
walk(reopened.getTree(), "");
const [info] = await listSessions(dir);
console.log(`session ${reopened.id}\nfile    ${reopened.location}\ntitle   ${info.title}\n`);
console.log(lines.join("\n"));
console.log(
  `\n* = active path; the model would be sent ${reopened.buildSessionContext().messages.length} messages.`,
);
