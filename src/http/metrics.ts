import { Counter, Histogram, Registry } from "prom-client";

export interface Metrics {
  readonly registry: Registry;
  observe(labels: { resource: string; hook: string; code: number }, seconds: number): void;
}

/** A registry of its own (not prom-client's global one), so that every app and test starts clean. */
export function createMetrics(registry = new Registry()): Metrics {
  const requests = new Counter({
    name: "dbhooks_hook_requests_total",
    help: "Hook requests by resource, hook and HTTP status code.",
    labelNames: ["resource", "hook", "code"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "dbhooks_hook_duration_seconds",
    help: "Time to answer a hook request, by resource and hook.",
    labelNames: ["resource", "hook"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  return {
    registry,
    observe({ resource, hook, code }, seconds) {
      requests.inc({ resource, hook, code: String(code) });
      duration.observe({ resource, hook }, seconds);
    },
  };
}
