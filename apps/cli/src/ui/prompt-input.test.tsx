import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { inputReady } from "./ink-input.test-util.js";
import { PromptInput } from "./prompt-input.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("PromptInput", () => {
  it("sends the typed text on Enter and clears the line", async () => {
    const onSubmit = vi.fn();
    const { stdin, lastFrame } = render(<PromptInput onSubmit={onSubmit} history={[]} active />);
    await inputReady(stdin);
    stdin.write("hello");
    await tick();
    await vi.waitFor(() => expect(lastFrame()).toContain("hello"));
    stdin.write("\r");
    await tick();
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledWith("hello"));
    await vi.waitFor(() => expect(lastFrame()).not.toContain("hello"));
  });

  it("sends text and Enter that arrive in one chunk", async () => {
    const onSubmit = vi.fn();
    const { stdin } = render(<PromptInput onSubmit={onSubmit} history={[]} active />);
    await inputReady(stdin);
    stdin.write("/tree\r");
    await tick();
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledWith("/tree"));
  });

  it("continues on a new line after a trailing backslash, and keeps pasted lines together", async () => {
    const onSubmit = vi.fn();
    const { stdin, lastFrame } = render(<PromptInput onSubmit={onSubmit} history={[]} active />);
    await inputReady(stdin);
    stdin.write("first\\");
    await tick();
    stdin.write("\r");
    await tick();
    stdin.write("second");
    await tick();
    await vi.waitFor(() => expect(lastFrame()).toMatch(/first\n\s+second/));
    stdin.write("\r");
    await tick();
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledWith("first\nsecond"));
    stdin.write("a\rb\rc");
    await tick();
    stdin.write("\r");
    await tick();
    await vi.waitFor(() => expect(onSubmit).toHaveBeenLastCalledWith("a\nb\nc"));
  });

  it("walks the history with the arrow keys and returns to the draft", async () => {
    const onSubmit = vi.fn();
    const { stdin, lastFrame } = render(
      <PromptInput onSubmit={onSubmit} history={["one", "two"]} active />,
    );
    await inputReady(stdin);
    stdin.write("dra");
    await tick();
    stdin.write("\u001B[A");
    await tick();
    await vi.waitFor(() => expect(lastFrame()).toContain("two"));
    stdin.write("\u001B[A");
    await tick();
    await vi.waitFor(() => expect(lastFrame()).toContain("one"));
    stdin.write("\u001B[B");
    await tick();
    stdin.write("\u001B[B");
    await tick();
    await vi.waitFor(() => expect(lastFrame()).toContain("dra"));
    stdin.write("\u007F");
    await tick();
    stdin.write("\r");
    await tick();
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledWith("dr"));
  });

  it("ignores keys while inactive", async () => {
    const onSubmit = vi.fn();
    const { stdin } = render(<PromptInput onSubmit={onSubmit} history={[]} active={false} />);
    await tick();
    stdin.write("x\r");
    await tick();
    expect(onSubmit).not.toHaveBeenCalled();
  });
});
