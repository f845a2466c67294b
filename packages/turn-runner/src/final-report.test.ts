import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FINAL_REPORT_TOOL_NAME, ReportContract } from "./final-report.js";

const person = z.object({ name: z.string(), age: z.number().int() });

describe("ReportContract", () => {
  it("describes the final-report tool with the schema under `report`", () => {
    const contract = new ReportContract(person);
    expect(contract.definition).toMatchObject({
      name: FINAL_REPORT_TOOL_NAME,
      parameters: {
        type: "object",
        required: ["report"],
        properties: {
          report: {
            type: "object",
            properties: { name: { type: "string" }, age: { type: "integer" } },
          },
        },
      },
    });
    expect(JSON.stringify(contract.definition)).not.toContain("$schema");
  });

  it("accepts a valid report as it is", () => {
    const contract = new ReportContract(person);
    expect(contract.fromToolCall({ report: { name: "Ada", age: 36 } })).toEqual({
      ok: true,
      value: { name: "Ada", age: 36 },
      repaired: false,
    });
  });

  it.each([
    ["JSON inside a string", { report: '{"name":"Ada","age":36}' }],
    ["fenced JSON inside a string", { report: '```json\n{"name":"Ada","age":36}\n```' }],
    ["the report not wrapped in `report`", { name: "Ada", age: 36 }],
    ["a single extra wrapper", { report: { person: { name: "Ada", age: 36 } } }],
  ])("repairs %s once", (_label, args) => {
    expect(new ReportContract(person).fromToolCall(args)).toEqual({
      ok: true,
      value: { name: "Ada", age: 36 },
      repaired: true,
    });
  });

  it("names at most three issues of an invalid report with their paths", () => {
    const contract = new ReportContract(
      z.object({ a: z.string(), b: z.string(), c: z.string(), d: z.string() }),
    );
    const reading = contract.fromToolCall({ report: {} });
    expect(reading.ok).toBe(false);
    if (reading.ok) return;
    expect(reading.issues).toHaveLength(3);
    expect(reading.issues[0]).toMatch(/^report\.a: /);
  });

  it("does not repair what is not trivially repairable", () => {
    const contract = new ReportContract(person);
    expect(contract.fromToolCall({ report: '{"name":"Ada"' }).ok).toBe(false);
    expect(contract.fromToolCall({ report: { a: 1, b: 2 } }).ok).toBe(false);
    expect(contract.fromToolCall({ report: { name: "Ada", age: "36" } }).ok).toBe(false);
  });

  it("validates with a JSON schema object", () => {
    const contract = new ReportContract({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { verdict: { type: "string", enum: ["pass", "fail"] } },
      required: ["verdict"],
    });
    expect(contract.fromToolCall({ report: { verdict: "pass" } })).toMatchObject({ ok: true });
    expect(contract.fromToolCall({ report: { verdict: "maybe" } }).ok).toBe(false);
    expect(JSON.stringify(contract.definition)).not.toContain("$schema");
  });

  it("rejects a JSON schema it cannot validate with", () => {
    expect(() => new ReportContract({ type: "no-such-type" })).toThrow(
      /outputSchema is not a JSON schema/,
    );
  });

  it("reads a report written as (fenced) JSON text, and nothing from prose", () => {
    const contract = new ReportContract(person);
    expect(contract.fromText('```json\n{"name":"Ada","age":36}\n```')).toEqual({
      ok: true,
      value: { name: "Ada", age: 36 },
      repaired: true,
    });
    expect(contract.fromText("Ada is 36.")).toBeUndefined();
    expect(contract.fromText('{"name":"Ada"}')).toBeUndefined();
  });
});
