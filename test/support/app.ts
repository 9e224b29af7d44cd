import { Writable } from "node:stream";
import { pino } from "pino";
import { createApp } from "../../src/http/app.js";
import { createMetrics } from "../../src/http/metrics.js";
import { loadResources } from "../../src/resources/registry.js";
import { FIXTURE_CONTEXT } from "./fixtures.js";

/** The app as main builds it, with the fixtures' clock and key, and its log lines captured. */
export function testApp(options: { bodyLimitBytes?: number; isReady?: () => boolean } = {}) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      callback();
    },
  });
  const logger = pino({ level: "debug" }, sink);
  const metrics = createMetrics();
  const app = createApp({
    resources: loadResources(),
    logger,
    metrics,
    bodyLimitBytes: options.bodyLimitBytes ?? 4 * 1024 * 1024,
    context: {
      credentialsKey: FIXTURE_CONTEXT.credentialsKey,
      finalBackupTimeoutSeconds: FIXTURE_CONTEXT.finalBackupTimeoutSeconds,
    },
    clock: () => FIXTURE_CONTEXT.now,
    ...(options.isReady ? { isReady: options.isReady } : {}),
  });
  return { app, lines, metrics };
}
