import { AgentCard } from "@a2a-js/sdk";
import type { AppDeps } from "../../app-deps.js";

/** The description of an agent from its definition, or a plain one. */
function describe(name: string, agent: unknown): string {
  const description = (agent as { description?: unknown }).description;
  return typeof description === "string" && description !== ""
    ? description
    : `The Arbor agent "${name}"`;
}

/**
 * The server's agent card (A2A v1.0): one skill per agent (the skill id is the agent's name,
 * which a message's `metadata.agent` chooses; the first agent answers otherwise), JSON-RPC at
 * `/a2a`, streaming, and the bearer scheme the server's keys use.
 */
export function agentCardOf(deps: AppDeps, origin: string): AgentCard {
  return {
    name: "arbor-server",
    description: "Arbor agents; each skill is an agent, chosen by metadata.agent.",
    supportedInterfaces: [
      { url: `${origin}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: `${origin}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ],
    provider: undefined,
    version: deps.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: { description: "An arbor-server API key", scheme: "Bearer", bearerFormat: "" },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [...deps.agents].map(([name, agent]) => ({
      id: name,
      name,
      description: describe(name, agent),
      tags: ["arbor-agent"],
      examples: [],
      inputModes: ["text/plain"],
      outputModes: ["text/plain"],
      securityRequirements: [],
    })),
    signatures: [],
  } as AgentCard;
}

/** The card as JSON (the protocol's JSON form). */
export function agentCardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}
