// The sync/finalize adapter: decode a hook request, call the resource's pure hook, encode the answer.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { isRecord } from "../metacontroller/observed.js";
import type { ChildrenMap, HookContext, HookRequest, HookResponse } from "../metacontroller/types.js";
import type { Hook, Resource } from "../resources/resource.js";
import { checkHeaders, nestsDeeperThan, parseJson, readBody } from "./body.js";
import { HttpError, sendError, sendJson } from "./errors.js";
import type { Metrics } from "./metrics.js";
import { childShapeProblem, parentShapeProblem } from "./shape.js";

export interface HookDeps {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: () => Date;
  readonly context: Omit<HookContext, "now">;
}

function decodeGroup(key: string, group: unknown): void {
  if (!isRecord(group))
    throw new HttpError(400, `children[${JSON.stringify(key)}]: must be an object of objects`);
  for (const name of Object.keys(group)) {
    const where = () => `children[${JSON.stringify(key)}][${JSON.stringify(name)}]`;
    const child = group[name];
    if (!isRecord(child)) throw new HttpError(400, `${where()}: must be an object`);
    const problem = childShapeProblem(key, child, where);
    if (problem) throw new HttpError(400, problem);
  }
}

function decodeChildren(value: unknown): ChildrenMap {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new HttpError(400, "children: must be an object keyed by <Kind>.<apiVersion>");
  for (const key of Object.keys(value)) decodeGroup(key, value[key]);
  return value as ChildrenMap;
}

/** A Metacontroller hook request for this resource, or an HttpError saying why not. */
export function decodeHookRequest(body: unknown, resource: Resource): HookRequest {
  if (!isRecord(body)) throw new HttpError(400, "request body must be a JSON object with a parent");
  const parent = body.parent;
  if (!isRecord(parent))
    throw new HttpError(400, "parent: Required value: a hook request carries the parent object");
  const metadata = parent.metadata;
  if (!isRecord(metadata) || typeof metadata.name !== "string" || metadata.name === "") {
    throw new HttpError(400, "parent.metadata.name: Required value");
  }
  if (metadata.namespace !== undefined && typeof metadata.namespace !== "string") {
    throw new HttpError(400, "parent.metadata.namespace: must be a string");
  }
  // The group is not checked: a controller may point us at another group's CRD with the same spec.
  if (parent.kind !== undefined && parent.kind !== resource.crd.kind) {
    throw new HttpError(
      422,
      `parent.kind: Unsupported value: ${JSON.stringify(parent.kind)}: this route serves ${resource.crd.kind}`,
    );
  }
  const problem = parentShapeProblem(parent);
  if (problem) throw new HttpError(400, problem);
  if (body.finalizing !== undefined && typeof body.finalizing !== "boolean") {
    throw new HttpError(400, "finalizing: must be a boolean");
  }
  return {
    parent: parent as HookRequest["parent"],
    children: decodeChildren(body.children),
    ...(body.finalizing !== undefined ? { finalizing: body.finalizing } : {}),
  };
}

/**
 * What a status says at a glance: its phase if it has one, and the status of each condition, e.g.
 * "Running Ready=True BackupSucceeded=True" or (WebService, no phase) "Available=True Progressing=True".
 */
function summaryOf(status: unknown): string {
  if (!isRecord(status)) return "";
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  const parts = conditions.map((c) => `${String(c.type)}=${String(c.status)}`);
  return [...(typeof status.phase === "string" ? [status.phase] : []), ...parts].join(" ");
}

/** Deeper than this, JSON.stringify or structuredClone may overflow the stack: such a request gets a 400. */
export const MAX_NESTING_DEPTH = 1000;

/** A plain node:http handler (also mounted in Express): the hook routes are the hot path. */
export type HookListener = (req: IncomingMessage, res: ServerResponse) => void;

interface Answer {
  readonly status: number;
  readonly text: string;
}

interface Labels {
  readonly resource: string;
  readonly hook: "sync" | "finalize";
}

function logStatusChange(request: HookRequest, response: HookResponse, labels: Labels, logger: Logger) {
  const phase = response.status.phase;
  const summary = summaryOf(response.status);
  // Log what changed, not every call: the hook sits in every reconcile of every parent.
  if (summary === summaryOf(request.parent.status) && !response.finalized) return;
  logger.info(
    {
      resource: labels.resource,
      namespace: request.parent.metadata?.namespace,
      name: request.parent.metadata?.name,
      hook: labels.hook,
      phase,
      finalized: response.finalized,
    },
    `${summary}${typeof response.status.message === "string" ? `: ${response.status.message}` : ""}`,
  );
}

/** Decode, run the hook, encode: any error becomes an answer here, none escapes. */
function answer(body: unknown, hook: Hook, resource: Resource, deps: HookDeps & { labels: Labels }): Answer {
  try {
    const request = decodeHookRequest(body, resource);
    const response = hook(request, { ...deps.context, now: deps.clock() });
    const text = JSON.stringify(response);
    logStatusChange(request, response, deps.labels, deps.logger);
    return { status: 200, text };
  } catch (error) {
    // A stack overflow on a pathologically nested request is the client's doing; anywhere else it is ours.
    const tooDeep = error instanceof RangeError && nestsDeeperThan(body, MAX_NESTING_DEPTH);
    const known = tooDeep
      ? new HttpError(400, `request body nests deeper than ${MAX_NESTING_DEPTH} levels`)
      : error;
    if (known instanceof HttpError) {
      deps.logger.debug({ ...deps.labels, status: known.status }, known.message);
      return { status: known.status, text: JSON.stringify({ error: known.message }) };
    }
    deps.logger.error({ err: error, ...deps.labels }, "unhandled error");
    return { status: 500, text: JSON.stringify({ error: "internal error" }) };
  }
}

function refuse(res: ServerResponse, error: HttpError, deps: HookDeps & { labels: Labels }): void {
  deps.logger.debug({ ...deps.labels, status: error.status }, error.message);
  // An unread body is read and dropped by node:http after the answer (bounded by the request timeout):
  // closing the socket instead could reset it under a client still sending, which then sees no answer.
  sendError(res, error.status, error.message);
}

export function hookHandler(
  resource: Resource,
  hookName: "sync" | "finalize",
  hook: Hook,
  deps: HookDeps & { readonly bodyLimitBytes: number },
): HookListener {
  const labels: Labels = { resource: resource.name, hook: hookName };
  const scoped = { ...deps, labels };
  return (req, res) => {
    const started = process.hrtime.bigint();
    res.once("finish", () =>
      deps.metrics.observe(
        { ...labels, code: res.statusCode },
        Number(process.hrtime.bigint() - started) / 1e9,
      ),
    );
    try {
      checkHeaders(req, deps.bodyLimitBytes);
    } catch (error) {
      refuse(res, error as HttpError, scoped);
      return;
    }
    readBody(req, deps.bodyLimitBytes, (error, raw) => {
      if (error) return refuse(res, error, scoped);
      let body: unknown;
      try {
        body = parseJson(raw);
      } catch (parseError) {
        return refuse(res, parseError as HttpError, scoped);
      }
      const { status, text } = answer(body, hook, resource, scoped);
      sendJson(res, status, text);
    });
  };
}
