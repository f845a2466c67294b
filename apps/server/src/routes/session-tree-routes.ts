import { exportSessionToHtml, snapshotOfSession } from "@arbor/html-export";
import type { Session, SessionEntry } from "@arbor/session-store";
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps } from "../app-deps.js";
import { ApiError } from "../errors/index.js";
import type { ServerEnv } from "../http/server-env.js";
import {
  errorResponses,
  jsonBody,
  jsonResponse,
  sessionParamsSchema,
} from "../schemas/common-schemas.js";
import {
  compactBodySchema,
  compactResponseSchema,
  contextResponseSchema,
  entriesPageSchema,
  entriesQuerySchema,
  exportQuerySchema,
  labelParamsSchema,
  labelResponseSchema,
  leafQuerySchema,
  navigateBodySchema,
  navigateResponseSchema,
  pathResponseSchema,
  setLabelBodySchema,
  treeResponseSchema,
} from "../schemas/session-schemas.js";
import { agentNamed, readSession, withHost, writeSession } from "./session-access.js";
import { validationHook } from "./validation-hook.js";

const tags = ["session tree"];

const getTree = createRoute({
  method: "get",
  path: "/sessions/{id}/tree",
  tags,
  summary: "The tree: every entry with its label and number of children",
  request: { params: sessionParamsSchema },
  responses: {
    200: jsonResponse(treeResponseSchema, "The tree, flat"),
    ...errorResponses(400, 401, 404, 429),
  },
});

const getEntries = createRoute({
  method: "get",
  path: "/sessions/{id}/entries",
  tags,
  summary: "The entries in stored order, paged",
  request: { params: sessionParamsSchema, query: entriesQuerySchema },
  responses: {
    200: jsonResponse(entriesPageSchema, "A page of entries"),
    ...errorResponses(400, 401, 404, 429),
  },
});

const getPath = createRoute({
  method: "get",
  path: "/sessions/{id}/path",
  tags,
  summary: "The entries from the root to a leaf (default the session's)",
  request: { params: sessionParamsSchema, query: leafQuerySchema },
  responses: {
    200: jsonResponse(pathResponseSchema, "The path"),
    ...errorResponses(400, 401, 404, 429),
  },
});

const getContext = createRoute({
  method: "get",
  path: "/sessions/{id}/context",
  tags,
  summary: "The context the model would see at a leaf",
  request: { params: sessionParamsSchema, query: leafQuerySchema },
  responses: {
    200: jsonResponse(contextResponseSchema, "The context"),
    ...errorResponses(400, 401, 404, 429),
  },
});

const setLabel = createRoute({
  method: "put",
  path: "/sessions/{id}/entries/{entryId}/label",
  tags,
  summary: "Set an entry's label",
  request: { params: labelParamsSchema, body: jsonBody(setLabelBodySchema) },
  responses: {
    200: jsonResponse(labelResponseSchema, "The label"),
    ...errorResponses(400, 401, 404, 409, 415, 429),
  },
});

const clearLabel = createRoute({
  method: "delete",
  path: "/sessions/{id}/entries/{entryId}/label",
  tags,
  summary: "Clear an entry's label",
  request: { params: labelParamsSchema },
  responses: {
    200: jsonResponse(labelResponseSchema, "No label"),
    ...errorResponses(400, 401, 404, 409, 429),
  },
});

const navigate = createRoute({
  method: "post",
  path: "/sessions/{id}/navigate",
  tags,
  summary: "Move the leaf, optionally summarizing the branch left",
  request: { params: sessionParamsSchema, body: jsonBody(navigateBodySchema) },
  responses: {
    200: jsonResponse(navigateResponseSchema, "Where the leaf is"),
    ...errorResponses(400, 401, 404, 409, 415, 429),
  },
});

const compact = createRoute({
  method: "post",
  path: "/sessions/{id}/compact",
  tags,
  summary: "Compact the session now",
  request: {
    params: sessionParamsSchema,
    body: { ...jsonBody(compactBodySchema), required: false },
  },
  responses: {
    200: jsonResponse(compactResponseSchema, "How it went"),
    ...errorResponses(400, 401, 404, 409, 415, 429),
  },
});

/** What the served export may do: its inline script and styles, data images, nothing else. */
const EXPORT_CSP =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const exportHtml = createRoute({
  method: "get",
  path: "/sessions/{id}/export",
  tags,
  summary: "The session as one self-contained HTML page",
  description:
    "Custom messages are shown through the renderers of the agent's extensions (`agent`, default the first configured agent).",
  request: { params: sessionParamsSchema, query: exportQuerySchema },
  responses: {
    200: { description: "The page", content: { "text/html": { schema: { type: "string" } } } },
    ...errorResponses(400, 401, 404, 429),
  },
});

function entryView(entry: SessionEntry) {
  return entry as unknown as {
    type: string;
    id?: string;
    parentId?: string | null;
    timestamp?: string;
  };
}

function checkEntry(session: Session, entryId: string | undefined): string | null {
  if (entryId === undefined) return session.getLeafId();
  if (!session.getEntry(entryId)) {
    throw new ApiError(404, "entry_not_found", `no entry "${entryId}" in session "${session.id}"`);
  }
  return entryId;
}

/** Tree routes: tree, entries, path, context, labels, navigate, compact, HTML export. */
export function sessionTreeRoutes(deps: AppDeps) {
  return new OpenAPIHono<ServerEnv>({ defaultHook: validationHook })
    .openapi(getTree, async (c) => {
      const { id } = c.req.valid("param");
      const tree = await readSession(deps, c.get("owner").tenantId, id, (session) => ({
        leafId: session.getLeafId(),
        nodes: session.getEntries().map((entry) => {
          const label = session.getLabel(entry.id);
          return {
            entry: entryView(entry),
            ...(label !== undefined ? { label } : {}),
            childCount: session.getChildren(entry.id).length,
          };
        }),
      }));
      return c.json(tree, 200);
    })
    .openapi(getEntries, async (c) => {
      const { id } = c.req.valid("param");
      const { cursor, limit } = c.req.valid("query");
      const page = await readSession(deps, c.get("owner").tenantId, id, (session) => {
        const all = session.getEntries();
        const start = cursor === undefined ? 0 : Number(cursor);
        const entries = all.slice(start, start + limit).map(entryView);
        const next = start + limit;
        return next < all.length ? { entries, nextCursor: String(next) } : { entries };
      });
      return c.json(page, 200);
    })
    .openapi(getPath, async (c) => {
      const { id } = c.req.valid("param");
      const { leafId } = c.req.valid("query");
      const entries = await readSession(deps, c.get("owner").tenantId, id, (session) => {
        const leaf = checkEntry(session, leafId);
        return leaf === null ? [] : session.getBranch(leaf).map(entryView);
      });
      return c.json({ entries }, 200);
    })
    .openapi(getContext, async (c) => {
      const { id } = c.req.valid("param");
      const { leafId } = c.req.valid("query");
      const context = await readSession(deps, c.get("owner").tenantId, id, (session) => {
        const leaf = checkEntry(session, leafId);
        const built = session.buildSessionContext(leaf);
        return {
          messages: built.messages as unknown as Array<{ role: string }>,
          thinkingLevel: built.thinkingLevel,
          model: built.model ?? null,
        };
      });
      return c.json(context, 200);
    })
    .openapi(setLabel, async (c) => {
      const { id, entryId } = c.req.valid("param");
      const { label } = c.req.valid("json");
      await writeSession(deps, c.get("owner").tenantId, id, async (session) => {
        checkEntry(session, entryId);
        await session.appendLabelChange(entryId, label);
      });
      return c.json({ entryId, label }, 200);
    })
    .openapi(clearLabel, async (c) => {
      const { id, entryId } = c.req.valid("param");
      await writeSession(deps, c.get("owner").tenantId, id, async (session) => {
        checkEntry(session, entryId);
        await session.appendLabelChange(entryId, undefined);
      });
      return c.json({ entryId }, 200);
    })
    .openapi(navigate, async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const moved = await withHost(
        deps,
        c.get("owner").tenantId,
        id,
        body.agent,
        "navigate",
        async (host) => {
          if (body.entryId !== null) checkEntry(host.session, body.entryId);
          return host.navigate(body.entryId, {
            summarize: body.summarize,
            ...(body.customInstructions !== undefined
              ? { customInstructions: body.customInstructions }
              : {}),
          });
        },
      );
      return c.json(
        {
          oldLeafId: moved.oldLeafId,
          newLeafId: moved.newLeafId,
          ...(moved.summaryEntryId !== undefined ? { summaryEntryId: moved.summaryEntryId } : {}),
        },
        200,
      );
    })
    .openapi(compact, async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json") ?? {};
      const outcome = await withHost(
        deps,
        c.get("owner").tenantId,
        id,
        body.agent,
        "compact",
        (host) => host.compact(body.instructions),
      );
      if (outcome.status === "compacted") {
        return c.json(
          { status: outcome.status, entryId: outcome.entryId, tokensBefore: outcome.tokensBefore },
          200,
        );
      }
      if (outcome.status === "failed") {
        const message =
          outcome.error instanceof Error ? outcome.error.message : "the summary failed";
        return c.json({ status: outcome.status, message }, 200);
      }
      return c.json({ status: outcome.status }, 200);
    })
    .openapi(exportHtml, async (c) => {
      const { id } = c.req.valid("param");
      const { agent } = c.req.valid("query");
      if (agent !== undefined) agentNamed(deps, agent);
      const name = agent ?? deps.agents.keys().next().value;
      const renderCustomMessage =
        name === undefined ? undefined : deps.extensions?.exportRendererOf(name);
      const html = await readSession(deps, c.get("owner").tenantId, id, (session) =>
        exportSessionToHtml(
          snapshotOfSession(session),
          renderCustomMessage ? { renderCustomMessage } : {},
        ),
      );
      // The id passed the path schema: no quote, separator or line break can reach the header.
      c.header("Content-Disposition", `inline; filename="session-${id}.html"`);
      // The page's own policy as a header too (a meta tag only takes effect once parsed, and
      // cannot forbid framing), and no sniffing the page as anything but HTML.
      c.header("Content-Security-Policy", EXPORT_CSP);
      c.header("X-Content-Type-Options", "nosniff");
      return c.html(html, 200);
    });
}
