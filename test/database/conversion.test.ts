import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParentObject } from "../../src/metacontroller/types.js";
import {
  convertDatabase,
  HIGH_AVAILABILITY_ANNOTATION,
  V1ALPHA1,
  V1BETA1,
} from "../../src/resources/database/conversion.js";
import { loadDatabaseSchema } from "../../src/resources/database/index.js";
import { parseDatabase } from "../../src/resources/database/spec.js";

const spec = fc.record(
  {
    engine: fc.constantFrom("postgresql", "mysql", "mongodb"),
    version: fc.constantFrom("16", "16.4", "8.4", "7.0"),
    replicas: fc.integer({ min: 1, max: 7 }),
    size: fc.constantFrom("small", "medium", "large"),
    storage: fc.record(
      { size: fc.constantFrom("1Gi", "10Gi", "2Ti"), storageClass: fc.constantFrom("fast", "standard") },
      { requiredKeys: ["size"] },
    ),
    backup: fc.record({
      enabled: fc.boolean(),
      schedule: fc.constantFrom("0 2 * * *", "*/30 * * * *"),
      retention: fc.integer({ min: 1, max: 365 }),
    }),
    deletionPolicy: fc.constantFrom("Retain", "Delete"),
  },
  { requiredKeys: ["engine", "version", "storage"] },
);
const metadata = fc.record(
  {
    name: fc.constantFrom("orders", "billing"),
    namespace: fc.constant("shop"),
    uid: fc.uuid(),
    generation: fc.nat(),
    // Non-empty when present: the API server drops empty maps.
    labels: fc.dictionary(fc.constantFrom("team", "tier"), fc.string({ maxLength: 8 }), { minKeys: 1 }),
    annotations: fc.dictionary(fc.constantFrom("owner", "note"), fc.string({ maxLength: 16 }), {
      minKeys: 1,
    }),
  },
  { requiredKeys: ["name", "namespace", "uid"] },
);
const highAvailability = fc.record(
  { enabled: fc.boolean(), autoFailover: fc.boolean(), failoverTimeout: fc.constantFrom("30s", "2m", "90s") },
  { requiredKeys: [] },
);
const status = fc.option(
  fc.record({ phase: fc.constantFrom("Running", "Failed"), readyReplicas: fc.nat(7) }),
  { nil: undefined },
);

const alpha = fc
  .record({ metadata, spec, status })
  .map(
    ({ status: s, ...o }) =>
      ({ apiVersion: V1ALPHA1, kind: "Database", ...o, ...(s ? { status: s } : {}) }) as ParentObject,
  );
const beta = fc
  .record({ metadata, spec, highAvailability: fc.option(highAvailability, { nil: undefined }), status })
  .map(
    ({ highAvailability: ha, status: s, spec: sp, ...o }) =>
      ({
        apiVersion: V1BETA1,
        kind: "Database",
        ...o,
        spec: { ...sp, ...(ha ? { highAvailability: ha } : {}) },
        ...(s ? { status: s } : {}),
      }) as ParentObject,
  );

describe("conversion between v1alpha1 and v1beta1", () => {
  it("is lossless from v1alpha1 through v1beta1 and back", () => {
    fc.assert(
      fc.property(alpha, (object) => {
        expect(convertDatabase(convertDatabase(object, V1BETA1), V1ALPHA1)).toEqual(object);
      }),
      { numRuns: 300 },
    );
  });

  it("is lossless from v1beta1 through v1alpha1 and back, highAvailability included", () => {
    fc.assert(
      fc.property(beta, (object) => {
        const stored = convertDatabase(object, V1ALPHA1);
        expect((stored.spec as Record<string, unknown>).highAvailability).toBeUndefined();
        const back = convertDatabase(stored, V1BETA1);
        const written = (object.spec as Record<string, unknown>).highAvailability;
        if (written) expect(back).toEqual(object);
        // Nothing written: v1beta1's default, enabled with replicas.
        else
          expect((back.spec as Record<string, unknown>).highAvailability).toEqual({
            enabled: ((object.spec as { replicas?: number }).replicas ?? 1) > 1,
            autoFailover: false,
            failoverTimeout: "30s",
          });
      }),
      { numRuns: 300 },
    );
  });

  it("keeps only a non-default highAvailability in the annotation", () => {
    const base = { apiVersion: V1BETA1, kind: "Database", metadata: { name: "orders", namespace: "shop" } };
    const withDefault = convertDatabase(
      {
        ...base,
        spec: {
          replicas: 3,
          highAvailability: { enabled: true, autoFailover: false, failoverTimeout: "30s" },
        },
      },
      V1ALPHA1,
    );
    expect(withDefault.metadata?.annotations).toBeUndefined();
    const custom = convertDatabase(
      {
        ...base,
        spec: { replicas: 3, highAvailability: { enabled: true, autoFailover: true, failoverTimeout: "2m" } },
      },
      V1ALPHA1,
    );
    expect(custom.metadata?.annotations?.[HIGH_AVAILABILITY_ANNOTATION]).toBe(
      '{"enabled":true,"autoFailover":true,"failoverTimeout":"2m"}',
    );
  });

  it("refuses versions it does not serve, and a corrupt annotation", () => {
    const object = {
      apiVersion: V1ALPHA1,
      kind: "Database",
      metadata: { name: "x", annotations: { [HIGH_AVAILABILITY_ANNOTATION]: "{" } },
      spec: {},
    };
    expect(() => convertDatabase(object, "dbhooks.io/v2")).toThrow("not served");
    expect(() => convertDatabase({ ...object, apiVersion: "other.io/v1" }, V1BETA1)).toThrow("not a served");
    expect(() => convertDatabase(object, V1BETA1)).toThrow(HIGH_AVAILABILITY_ANNOTATION);
  });

  it("lets the hooks read a v1beta1 parent as v1alpha1", () => {
    const schema = loadDatabaseSchema();
    const parsed = parseDatabase(
      {
        apiVersion: V1BETA1,
        kind: "Database",
        metadata: { name: "orders", namespace: "shop" },
        spec: {
          engine: "postgresql",
          version: "16",
          storage: { size: "1Gi" },
          highAvailability: { enabled: true },
        },
      },
      schema,
    );
    expect(parsed.ok && parsed.database.spec).toMatchObject({ engine: "postgresql", replicas: 1 });
    expect(parsed.ok && "highAvailability" in parsed.database.spec).toBe(false);
  });
});
