// fast-check generators of Database hook requests: valid Databases, the children a cluster could report for
// them, and specs that are wrong in every way the schema and the semantic checks know of.
import fc from "fast-check";
import type { ChildrenMap, HookRequest, KubeObject, ParentObject } from "../../src/metacontroller/types.js";
import { type Loose, observedAs, sync } from "../support/database.js";

const UID = "7d0c6f7a-0000-4000-8000-000000000001";

/** A Database name: a DNS-1035 label of at most 42 characters. */
export const databaseName = fc.stringMatching(/^[a-z]([-a-z0-9]{0,40}[a-z0-9])?$/);
/** A namespace: a DNS-1123 label of at most 63 characters. */
export const namespaceName = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
const dnsSubdomain = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?(\.[a-z0-9]{1,10}){0,2}$/);

const minor = fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined });
const dotted = (major: number, m?: number, patch?: number) =>
  [major, m, m === undefined ? undefined : patch].filter((p) => p !== undefined).join(".");

/** An engine with a version it supports. */
export const engineAndVersion = fc.oneof(
  fc
    .tuple(fc.integer({ min: 14, max: 18 }), minor, minor)
    .map(([major, m, p]) => ({ engine: "postgresql", version: dotted(major, m, p) })),
  fc
    .oneof(
      fc.tuple(fc.constant(8), fc.integer({ min: 4, max: 9 }), minor),
      fc.tuple(fc.constant(9), minor, minor),
    )
    .map(([major, m, p]) => ({ engine: "mysql", version: dotted(major, m, p) })),
  fc
    .tuple(fc.constantFrom(7, 8), minor, minor)
    .map(([major, m, p]) => ({ engine: "mongodb", version: dotted(major, m, p) })),
);

/** One field of a cron schedule within [min, max]: a value, *, a step or a range. */
const cronField = (min: number, max: number) =>
  fc.oneof(
    fc.constant("*"),
    fc.integer({ min, max }).map(String),
    fc.integer({ min: 1, max: max - min + 1 }).map((step) => `*/${step}`),
    fc
      .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
      .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
  );
export const schedule = fc
  .tuple(
    cronField(0, 59),
    cronField(0, 23),
    cronField(1, 28),
    fc.oneof(cronField(1, 12), fc.constantFrom("JAN", "mar-jun")),
    fc.oneof(cronField(0, 6), fc.constantFrom("MON-FRI", "sun")),
  )
  .map((fields) => fields.join(" "));

const cpu = fc.oneof(
  fc.integer({ min: 1, max: 4000 }).map((m) => `${m}m`),
  fc.constantFrom("1", "2", "0.5", "1.25"),
);
const memory = fc.oneof(
  fc.integer({ min: 128, max: 8192 }).map((m) => `${m}Mi`),
  fc.integer({ min: 1, max: 16 }).map((g) => `${g}Gi`),
  fc.constantFrom("1G", "800M", "2147483648"),
);
const resourceValues = fc.record({ cpu, memory }, { requiredKeys: [] });

/** A spec the CRD schema and the semantic checks accept. */
export const validSpec = fc
  .record(
    {
      engineAndVersion,
      replicas: fc.integer({ min: 1, max: 7 }),
      size: fc.constantFrom("small", "medium", "large"),
      storage: fc.record(
        {
          size: fc
            .tuple(fc.integer({ min: 1, max: 2000 }), fc.constantFrom("Mi", "Gi", "Ti"))
            .map(([n, u]) => `${n}${u}`),
          storageClass: dnsSubdomain,
        },
        { requiredKeys: ["size"] },
      ),
      backup: fc.record(
        {
          enabled: fc.boolean(),
          schedule,
          retention: fc.integer({ min: 1, max: 365 }),
          claimName: dnsSubdomain,
        },
        { requiredKeys: [] },
      ),
      resources: fc.record({ requests: resourceValues, limits: resourceValues }, { requiredKeys: [] }),
      deletionPolicy: fc.constantFrom("Retain", "Delete"),
    },
    { requiredKeys: ["engineAndVersion", "storage"] },
  )
  .map(({ engineAndVersion: ev, ...rest }) => ({ ...ev, ...rest }) as Loose);

export function parentOf(
  spec: unknown,
  identity: { name: string; namespace: string; generation?: number },
  status?: unknown,
): ParentObject {
  return {
    apiVersion: "dbhooks.io/v1alpha1",
    kind: "Database",
    metadata: {
      name: identity.name,
      namespace: identity.namespace,
      uid: UID,
      generation: identity.generation ?? 1,
    },
    spec,
    ...(status === undefined ? {} : { status }),
  };
}

const time = fc
  .integer({ min: Date.UTC(2026, 0, 1) / 1000, max: Date.UTC(2026, 2, 1) / 1000 })
  .map((s) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"));

/** What the StatefulSet and CronJob controllers could have written: any mix of progress, often all done. */
const childStatus = fc.record({
  ready: fc.oneof({ weight: 2, arbitrary: fc.constant(7) }, fc.integer({ min: 0, max: 7 })),
  updated: fc.oneof({ weight: 2, arbitrary: fc.constant(7) }, fc.integer({ min: 0, max: 7 })),
  observedGeneration: fc.integer({ min: 0, max: 3 }),
  revisionsMatch: fc.oneof({ weight: 2, arbitrary: fc.constant(true) }, fc.boolean()),
  lastScheduleTime: fc.option(time, { nil: undefined }),
  lastSuccessfulTime: fc.option(time, { nil: undefined }),
  backupRunning: fc.boolean(),
});

type ChildStatus = typeof childStatus extends fc.Arbitrary<infer T> ? T : never;

function withStatus(o: Loose, s: ChildStatus): void {
  if (o.kind === "StatefulSet") {
    o.status = {
      observedGeneration: s.observedGeneration,
      replicas: o.spec.replicas,
      readyReplicas: Math.min(s.ready, o.spec.replicas),
      updatedReplicas: Math.min(s.updated, o.spec.replicas),
      currentRevision: "r1",
      updateRevision: s.revisionsMatch ? "r1" : "r2",
    };
  }
  if (o.kind === "CronJob") {
    o.status = {
      ...(s.lastScheduleTime ? { lastScheduleTime: s.lastScheduleTime } : {}),
      ...(s.lastSuccessfulTime ? { lastSuccessfulTime: s.lastSuccessfulTime } : {}),
      ...(s.backupRunning ? { active: [{ name: "x" }] } : {}),
    };
  }
}

/** Re-key children by namespace/name, as hook version v2 sends them. */
function v2Keys(children: ChildrenMap): ChildrenMap {
  return Object.fromEntries(
    Object.entries(children).map(([key, group]) => [
      key,
      Object.fromEntries(
        Object.values(group).map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o]),
      ),
    ]),
  );
}

export interface Scenario {
  readonly request: HookRequest;
  /** The children the cluster reports, also as a flat list. */
  readonly observed: readonly KubeObject[];
}

/** The spec the observed children were made from: the same, a small change of it, or another Database. */
const earlierSpec = (spec: Loose): fc.Arbitrary<Loose> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(spec) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 7 }).map((replicas) => ({ ...spec, replicas })) },
    { weight: 1, arbitrary: fc.constantFrom("small", "medium", "large").map((size) => ({ ...spec, size })) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 0, max: 9 })
        .map((m) => ({ ...spec, version: `${spec.version.split(".")[0]}.${m}` })),
    },
    { weight: 1, arbitrary: validSpec },
  );

/**
 * A valid Database and an observed state: the children some earlier spec of the same Database produced
 * (the same spec, a small change of it, or another engine or major), mostly all of them, with controller
 * status, keyed as hook version v1 or v2, and a previous status.
 */
const scenario = (earlierOf: (spec: Loose) => fc.Arbitrary<Loose>): fc.Arbitrary<Scenario> =>
  validSpec
    .chain((spec) =>
      fc.record({
        name: databaseName,
        namespace: namespaceName,
        spec: fc.constant(spec),
        earlier: earlierOf(spec),
        keep: fc.array(fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, fc.boolean()), {
          minLength: 12,
          maxLength: 12,
        }),
        status: childStatus,
        secretData: fc.option(fc.dictionary(fc.stringMatching(/^[a-z-]{1,12}$/), fc.base64String()), {
          nil: undefined,
        }),
        v2: fc.boolean(),
        previousPhase: fc.option(fc.constantFrom("Pending", "Creating", "Running", "Degraded", "Failed"), {
          nil: undefined,
        }),
      }),
    )
    .map(({ name, namespace, spec, earlier, keep, status, secretData, v2, previousPhase }) => {
      const identity = { name, namespace };
      const before = sync({ parent: parentOf(earlier, identity), children: {} }).children;
      const kept = before.filter((_, i) => keep[i]);
      let children = observedAs(kept, (o) => {
        withStatus(o, status);
        if (o.kind === "Secret" && secretData) o.data = secretData;
      });
      if (v2) children = v2Keys(children);
      const previous = previousPhase ? { phase: previousPhase, readyReplicas: status.ready } : undefined;
      return {
        request: { parent: parentOf(spec, { ...identity, generation: 2 }, previous), children },
        observed: Object.values(children).flatMap((group) => Object.values(group)),
      };
    });

export const validScenario = scenario(earlierSpec);

/** A Database whose observed children run another engine than its spec asks for. */
export const engineChangeScenario = scenario((spec) => validSpec.filter((s) => s.engine !== spec.engine));

/** A spec that one mistake makes invalid, or anything at all where a spec should be. */
export const invalidSpec = fc.oneof(
  fc
    .tuple(
      validSpec,
      fc.constantFrom<[string, unknown]>(
        ["replicas", 0],
        ["replicas", 8],
        ["replicas", "3"],
        ["replicas", 1.5],
        ["engine", "oracle"],
        ["engine", 42],
        ["version", "latest"],
        ["version", "13"],
        ["version", 16],
        ["storage", { size: "10GB" }],
        ["storage", "10Gi"],
        ["storage", undefined],
        ["size", "huge"],
        ["backup", { schedule: "61 * * * *" }],
        ["backup", { schedule: "* * *" }],
        ["backup", { retention: 0 }],
        ["backup", { enabled: "yes" }],
        ["resources", { limits: { memory: "lots" } }],
        ["deletionPolicy", "Orphan"],
      ),
    )
    .map(([spec, [field, value]]) => ({ ...spec, [field]: value })),
  fc.anything(),
);

/** A Database name the hook refuses: too long, upper case, or not a DNS-1035 label. */
const invalidName = fc.oneof(
  fc.stringMatching(/^[a-z]{43,60}$/),
  fc.constantFrom("Orders", "1orders", "orders-", "or_ders", "orders.shop"),
);

/** An invalid parent with whatever children a cluster (or a buggy client) could report. */
export const invalidScenario: fc.Arbitrary<Scenario> = fc
  .record({
    valid: validScenario,
    spec: invalidSpec,
    name: fc.option(invalidName, { nil: undefined }),
    strays: fc.dictionary(
      fc.constantFrom("Service.v1", "ConfigMap.v1", "Job.batch/v1", "Pod.v1"),
      fc.dictionary(
        fc.string(),
        fc.record({ metadata: fc.record({ name: fc.string() }), spec: fc.anything() }),
      ),
    ),
  })
  .map(({ valid, spec, name, strays }) => {
    const children: ChildrenMap = { ...valid.request.children };
    for (const [key, group] of Object.entries(strays)) {
      children[key] = { ...children[key], ...(group as Record<string, KubeObject>) };
    }
    const metadata = { ...valid.request.parent.metadata, ...(name ? { name } : {}) };
    return {
      request: { ...valid.request, parent: { ...valid.request.parent, metadata, spec }, children },
      observed: Object.values(children).flatMap((group) => Object.values(group)),
    };
  });
