// The only impure edge: environment -> config, logger, listening socket, signals.
import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { collectDefaultMetrics } from "prom-client";
import { ConfigError, loadConfig } from "./config.js";
import { createApp } from "./http/app.js";
import { createMetrics } from "./http/metrics.js";
import { createHttpServer } from "./http/server.js";
import { serveTls } from "./http/tls.js";
import { loadResources } from "./resources/registry.js";

function main(): void {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`dbhooks: invalid configuration: ${error.message}\n`);
    process.exit(2);
  }
  const logger = pino({
    level: config.logLevel,
    // Defence in depth: nothing logs request bodies, but a Secret's data must never reach the log.
    redact: {
      paths: ["data", "*.data", "stringData", "*.stringData", "password", "*.password"],
      censor: "[redacted]",
    },
  });
  let credentialsKey = config.credentialsKey;
  if (!credentialsKey) {
    credentialsKey = new Uint8Array(randomBytes(32));
    logger.warn(
      "DBHOOKS_CREDENTIALS_KEY is not set: using a random key for this process only. Replicas of dbhooks will then derive different initial passwords; set the same key on every replica.",
    );
  }
  const metrics = createMetrics();
  collectDefaultMetrics({ register: metrics.registry });
  let ready = true;
  const app = createApp({
    resources: loadResources(),
    logger,
    metrics,
    bodyLimitBytes: config.bodyLimitBytes,
    context: { credentialsKey, finalBackupTimeoutSeconds: config.finalBackupTimeoutSeconds },
    isReady: () => ready,
  });
  // A slow or stuck client cannot hold a socket forever: see SERVER_TIMEOUTS.
  const server = createHttpServer(app);

  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    logger.info({ port }, "dbhooks listening");
  });
  // The admission and conversion webhooks: the API server calls them over TLS only.
  const https = config.tls ? serveTls(app, { ...config.tls, host: config.host }, logger) : undefined;

  const shutdown = (signal: string) => {
    if (!ready) return;
    ready = false;
    logger.info({ signal }, "shutting down: /readyz now answers 503");
    setTimeout(() => {
      logger.warn("shutdown deadline passed with requests still in flight: exiting");
      process.exit(1);
    }, config.shutdownTimeoutSeconds * 1000).unref();
    setTimeout(() => {
      https?.close();
      server.close(() => {
        logger.info("all connections closed");
        process.exit(0);
      });
      // A keep-alive connection whose request was in flight at close() turns idle only later; answers
      // sent now say Connection: close (createApp), and this closes what a client still keeps open.
      setInterval(() => server.closeIdleConnections(), 100).unref();
    }, config.shutdownDelaySeconds * 1000).unref();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main();
