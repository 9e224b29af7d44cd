// The sync/finalize adapter: decode a hook request, call the resource's pure hook, encode the answer.
import type { RequestHandler } from "express";
import type { Logger } from "pino";
import { isRecord } from "../metacontroller/observed.js";
import type { ChildrenMap, HookContext, HookRequest, HookResponse } from "../metacontroller/types.js";
import type { Hook, Resource } from "../resources/resource.js";
import { HttpError } from "./errors.js";
import type { Metrics } from "./metrics.js";

export interface HookDeps {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: () => Date;
  readonly context: Omit<HookContext, "now">;
}

function decodeChildren(value: unknown): ChildrenMap {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw new HttpError(400, "children: must be an object keyed by <Kind>.<apiVersion>");
  for (const [key, group] of Object.entries(value)) {
    if (!isRecord(group))
      throw new HttpError(400, `children[${JSON.stringify(key)}]: must be an object of objects`);
    for (const [name, child] of Object.entries(group)) {
      if (!isRecord(child))
        throw new HttpError(
          400,
          `children[${JSON.stringify(key)}][${JSON.stringify(name)}]: must be an object`,
        );
    }
  }
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
  if (body.finalizing !== undefined && typeof body.finalizing !== "boolean") {
    throw new HttpError(400, "finalizing: must be a boolean");
  }
  return {
    parent: parent as HookRequest["parent"],
    children: decodeChildren(body.children),
    ...(body.finalizing !== undefined ? { finalizing: body.finalizing } : {}),
  };
}

function phaseOf(status: unknown): unknown {
  return isRecord(status) ? status.phase : undefined;
}

export function hookHandler(
  resource: Resource,
  hookName: "sync" | "finalize",
  hook: Hook,
  deps: HookDeps,
): RequestHandler {
  return (req, res) => {
    const started = process.hrtime.bigint();
    const done = (code: number) =>
      deps.metrics.observe(
        { resource: resource.name, hook: hookName, code },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    res.once("finish", () => done(res.statusCode));
    if (!req.is("application/json")) throw new HttpError(415, "Content-Type must be application/json");
    const request = decodeHookRequest(req.body, resource);
    const response: HookResponse = hook(request, { ...deps.context, now: deps.clock() });
    const phase = response.status.phase;
    // Log what changed, not every call: the hook sits in every reconcile of every parent.
    if (phase !== phaseOf(request.parent.status) || response.finalized) {
      deps.logger.info(
        {
          resource: resource.name,
          namespace: request.parent.metadata?.namespace,
          name: request.parent.metadata?.name,
          hook: hookName,
          phase,
          finalized: response.finalized,
        },
        `phase ${String(phase)}: ${String(response.status.message ?? "")}`,
      );
    }
    res.json(response);
  };
}
