// createApp(deps): the request listener for every registered resource. It never listens; main does.
// Express routes everything; a POST to a hook's exact path skips Express and goes straight to the hook
// handler (plain node:http), the service's hot path: see README, Performance.
import type { IncomingMessage, ServerResponse } from "node:http";
import express from "express";
import type { Logger } from "pino";
import type { HookContext } from "../metacontroller/types.js";
import type { Resource } from "../resources/resource.js";
import { convertHandler, mutateHandler, validateHandler } from "./admission.js";
import { errorHandler, sendError } from "./errors.js";
import { type HookListener, hookHandler } from "./metacontroller.js";
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

/** The admission and conversion webhook routes: served on every listener, called by the API server over TLS. */
export function webhookRoutes(resources: readonly Resource[]): string[] {
  return resources.flatMap((r) => [
    ...(r.admission ? [`/${r.name}/validate`, `/${r.name}/mutate`] : []),
    ...(r.convert ? [`/${r.name}/convert`] : []),
  ]);
}

/** The AdmissionReview and ConversionReview routes of one resource (not a hot path: Express parses). */
function addWebhookRoutes(app: express.Express, resource: Resource, deps: AppDeps): void {
  const json = express.json({ limit: deps.bodyLimitBytes });
  const { admission, convert } = resource;
  if (admission) {
    app.post(`/${resource.name}/validate`, json, validateHandler(resource, admission, deps.logger));
    app.post(`/${resource.name}/mutate`, json, mutateHandler(resource, admission, deps.logger));
  }
  if (convert) app.post(`/${resource.name}/convert`, json, convertHandler(resource, convert, deps.logger));
}

/** What createApp returns: a node:http request listener (http.createServer(app), supertest(app)). */
export type App = (req: IncomingMessage, res: ServerResponse) => void;

/** "/database/sync?x" -> "/database/sync". */
function pathOf(url: string | undefined): string {
  const query = url?.indexOf("?") ?? -1;
  return query < 0 ? (url ?? "") : (url ?? "").slice(0, query);
}

export function createApp(deps: AppDeps): App {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const clock = deps.clock ?? (() => new Date());
  const isReady = deps.isReady ?? (() => true);
  const hookDeps = {
    logger: deps.logger,
    metrics: deps.metrics,
    clock,
    context: deps.context,
    bodyLimitBytes: deps.bodyLimitBytes,
  };
  const fastHooks = new Map<string, HookListener>();

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

  for (const resource of deps.resources) {
    addWebhookRoutes(app, resource, deps);
    const hooks = { sync: resource.sync, ...(resource.finalize ? { finalize: resource.finalize } : {}) };
    for (const [name, hook] of Object.entries(hooks) as ["sync" | "finalize", typeof resource.sync][]) {
      const path = `/${resource.name}/${name}`;
      const handler = hookHandler(resource, name, hook, hookDeps);
      fastHooks.set(path, handler);
      // Express still routes what the fast path does not match exactly (a trailing slash, other case).
      app.post(path, (req, res) => handler(req, res));
      app.all(path, (_req, res) => {
        res.set("Allow", "POST");
        sendError(res, 405, `${path} accepts POST only`);
      });
    }
  }
  app.use((req, res) => sendError(res, 404, `no route for ${req.method} ${req.path}`));
  app.use(errorHandler(deps.logger));
  return (req, res) => {
    // Once shutdown has begun, no connection is kept alive: clients move to the replicas still ready.
    if (!isReady()) res.setHeader("Connection", "close");
    const hook = req.method === "POST" ? fastHooks.get(pathOf(req.url)) : undefined;
    if (hook) hook(req, res);
    else app(req, res);
  };
}
