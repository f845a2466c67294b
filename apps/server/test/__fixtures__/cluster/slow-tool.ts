/*
 * A tool that takes its time, for the cluster tests that kill an instance while a tool runs:
 * `wait` sleeps for the milliseconds it is given, then says so.
 */
import type { ExtensionAPI } from "@arbor/extensions-api";
import { z } from "zod";

export default function slowTool(arbor: ExtensionAPI): void {
  arbor.registerTool({
    name: "wait",
    description: "Waits for a number of milliseconds",
    parameters: z.object({ ms: z.number() }),
    execute: async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: `waited ${ms} ms` };
    },
  });
}
