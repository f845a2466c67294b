/*
 * A todo list for the session: `/todo add <text>`, `/todo done <number>`, `/todo clear`,
 * and `/todos` to show it. The list lives in the session as `todo` custom entries (never
 * sent to the model), one per change holding the whole list, so it follows the branch:
 * after navigating back, the list is what it was at that point. `/todos` shows the list in
 * the transcript as a `todo-list` message drawn by this extension's renderer (checkboxes;
 * an HTML list in the HTML export);
 * it is display-only (`deliverAs: "nextTurn"` keeps it out of any running turn).
 *
 * Load it with `arbor --extension examples/extensions/todo-list.ts`.
 */
import type { ExtensionAPI, ReadonlySessionView } from "@arbor/extensions-api";

/** One item of the list. */
export interface Todo {
  text: string;
  done: boolean;
}

/** The `custom` entry type the list is stored in. */
export const TODO_ENTRY = "todo";
/** The `custom_message` type `/todos` shows the list with. */
export const TODO_MESSAGE = "todo-list";

export default function todoList(arbor: ExtensionAPI): void {
  arbor.registerCommand("todo", {
    description: "Change the todo list: /todo add <text> | done <number> | clear",
    handler: async (args, ctx) => {
      const [action = "", ...rest] = args.split(/\s+/);
      const text = rest.join(" ").trim();
      const todos = currentTodos(ctx.session);
      if (action === "add" && text) {
        todos.push({ text, done: false });
      } else if (action === "done") {
        const target = todos[Number(text) - 1];
        if (!target) {
          ctx.ui.notify(`There is no item ${text || "(none given)"}`, "warning");
          return;
        }
        target.done = true;
      } else if (action === "clear") {
        todos.splice(0);
      } else {
        ctx.ui.notify("Usage: /todo add <text> | done <number> | clear", "warning");
        return;
      }
      await arbor.appendEntry(TODO_ENTRY, { todos });
      const open = todos.filter((todo) => !todo.done).length;
      ctx.ui.notify(`${open} open of ${todos.length}`);
    },
  });

  arbor.registerCommand("todos", {
    description: "Show the todo list",
    handler: async (_args, ctx) => {
      const todos = currentTodos(ctx.session);
      await arbor.sendMessage(
        {
          customType: TODO_MESSAGE,
          content: formatTodos(todos).join("\n") || "The todo list is empty.",
          display: true,
          details: { todos },
        },
        { deliverAs: "nextTurn" },
      );
    },
  });

  arbor.registerMessageRenderer(TODO_MESSAGE, (message, options) => {
    const todos = (message.details as { todos?: Todo[] } | undefined)?.todos ?? [];
    const open = todos.filter((todo) => !todo.done).length;
    const heading = `Todo (${open} open of ${todos.length})`;
    // The HTML export gets a list with checkboxes drawn as text; the items are the user's
    // words, so they are escaped (the page also keeps only safe markup).
    if (options.target === "html") return { html: todoHtml(heading, todos) };
    const lines = formatTodos(todos).map((line) => line.slice(0, options.width));
    return [heading, ...lines];
  });
}

/** The list as of the newest `todo` entry on the current branch. */
export function currentTodos(session: ReadonlySessionView): Todo[] {
  const branch = session.getBranch();
  for (let index = branch.length - 1; index >= 0; index--) {
    const entry = branch[index];
    if (entry?.type === "custom" && entry.customType === TODO_ENTRY)
      return structuredClone((entry.data as { todos: Todo[] }).todos);
  }
  return [];
}

/** `1. [x] text` lines. */
export function formatTodos(todos: readonly Todo[]): string[] {
  return todos.map((todo, index) => `${index + 1}. [${todo.done ? "x" : " "}] ${todo.text}`);
}

/** The list as HTML for the export: a heading and an ordered list, the texts escaped. */
export function todoHtml(heading: string, todos: readonly Todo[]): string {
  const escaped = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const items = todos
    .map((todo) => `<li>${todo.done ? "☑" : "☐"} ${escaped(todo.text)}</li>`)
    .join("");
  return `<p><strong>${escaped(heading)}</strong></p><ol>${items}</ol>`;
}
