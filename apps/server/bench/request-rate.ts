import type { BenchServer } from "./bench-server.js";

/** Calls per second of `call` with `concurrency` callers for `ms`; failed calls are counted apart. */
export async function callRate(
  call: () => Promise<boolean>,
  options: { concurrency: number; ms: number },
): Promise<{ perSecond: number; failures: number }> {
  let done = 0;
  let failures = 0;
  const until = performance.now() + options.ms;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < until) {
        if (await call()) done++;
        else failures++;
      }
    }),
  );
  return { perSecond: (done * 1000) / (performance.now() - start), failures };
}

/** Requests per second of one GET route; non-2xx answers are counted apart. */
export function requestRate(
  bench: BenchServer,
  path: string,
  options: { concurrency: number; ms: number },
) {
  return callRate(async () => {
    const res = await bench.call("GET", path);
    await res.arrayBuffer();
    return res.ok;
  }, options);
}
