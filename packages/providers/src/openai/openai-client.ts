import OpenAI from "openai";
import { ActivityFetch } from "../adapter/activity-fetch.js";
import { ModelConfigError } from "../errors.js";
import { adapterSecrets } from "../secrets/adapter-secrets.js";

/** What both OpenAI adapters take to reach the API. */
export interface OpenAIConnectionOptions {
  apiKey?: string;
  baseURL?: string;
  client?: OpenAI;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/**
 * The client an OpenAI adapter streams through: the caller's, or one Arbor builds (no
 * retries of its own, no logging) that reports raw bytes to the idle timer; a caller's
 * client reports events only. Also the secrets its errors must never show.
 * @param owner the adapter call, for messages (`createOpenAIChatModel(gpt-4.1)`)
 * @throws ModelConfigError without an `apiKey` or a `client`
 */
export function openAIConnection(
  owner: string,
  options: OpenAIConnectionOptions,
): { client: OpenAI; activity: ActivityFetch | undefined; secrets: (string | undefined)[] } {
  if (options.client === undefined && options.apiKey === undefined) {
    throw new ModelConfigError(
      `${owner} needs an apiKey or a client; pass one explicitly (Arbor never reads the environment)`,
    );
  }
  const secrets = adapterSecrets(owner, options);
  const activity = options.client === undefined ? new ActivityFetch(options.fetch) : undefined;
  const client =
    options.client ??
    new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseURL ?? null,
      maxRetries: 0,
      logLevel: "off",
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
      ...(activity ? { fetch: activity.fetch } : {}),
    });
  return { client, activity, secrets };
}
