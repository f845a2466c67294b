import { buildClient } from "../build-client.js";

/** Builds the page script once per test run, so tests never read a stale bundle. */
export default async function setup(): Promise<void> {
  await buildClient();
}
