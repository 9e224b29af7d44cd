// createApp(deps): the Express app for every registered resource. It never listens; main does.
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { HookContext } from "../metacontroller/types.js";
import type { Resource } from "../resources/resource.js";
import { errorHandler, sendError } from "./errors.js";
import { hookHandler } from "./metacontroller.js";
import type { Metrics } from "./metrics.js";

export interface AppDeps {
  readonly resources: readonly Resource[];
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly bodyLimitBytes: number;
  readonly context: Omit<HookContext, "now">;
  readonly clock?: () => Date;
  /** False once shutdown has begun: /readyz then answers 503. */
  readonly isReady?: () => boolean;
}

/** Every hook route the app serves, for the manifests test and the docs. */
export function hookRoutes(resources: readonly Resource[]): string[] {
  return resources.flatMap((r) => [`/${r.name}/sync`, ...(r.finalize ? [`/${r.name}/finalize`] : [])]);
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const clock = deps.clock ?? (() => new Date());
  const isReady = deps.isReady ?? (() => true);
  const hookDeps = { logger: deps.logger, metrics: deps.metrics, clock, context: deps.context };

  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/readyz", (_req, res) => {
    if (isReady()) res.json({ status: "ready" });
    else sendError(res, 503, "shutting down");
  });
  app.get("/metrics", async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  const json = express.json({ limit: deps.bodyLimitBytes, type: ["application/json", "application/*+json"] });
  for (const resource of deps.resources) {
    const hooks = { sync: resource.sync, ...(resource.finalize ? { finalize: resource.finalize } : {}) };
    for (const [name, hook] of Object.entries(hooks) as ["sync" | "finalize", typeof resource.sync][]) {
      const path = `/${resource.name}/${name}`;
      app.post(path, json, hookHandler(resource, name, hook, hookDeps));
      app.all(path, (_req, res) => {
        res.set("Allow", "POST");
        sendError(res, 405, `${path} accepts POST only`);
      });
    }
  }
  app.use((req, res) => sendError(res, 404, `no route for ${req.method} ${req.path}`));
  app.use(errorHandler(deps.logger));
  return app;
}
