import { describe, expect, it } from "vitest";
import { createApp } from "./app.js";

describe("createApp", () => {
  const app = createApp({ version: "1.2.3" });

  it("answers /health with its version", async () => {
    const res = await app.request("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", version: "1.2.3" });
  });

  it("answers an unknown route with a JSON 404 naming it", async () => {
    const res = await app.request("/nope", { method: "POST" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { code: "not_found", message: "no route for POST /nope" },
    });
  });
});
