import { describe, expect, it } from "vitest";
import type { ParentObject } from "../../src/metacontroller/types.js";
import {
  mutateDatabase,
  RESOURCES_FROM_SIZE_ANNOTATION,
  validateDatabase,
} from "../../src/resources/database/admission.js";
import { loadDatabaseSchema } from "../../src/resources/database/index.js";
import { type Loose, POSTGRES, parent } from "../support/database.js";

const schema = loadDatabaseSchema();
const validate = (spec: unknown, oldSpec?: unknown, extra: Partial<ParentObject> = {}) =>
  validateDatabase(schema, parent(spec, extra), oldSpec === undefined ? undefined : parent(oldSpec));

/** Applies a JSONPatch of add/replace/remove operations the way the API server does. */
function applyPatch(object: ParentObject, patch: ReturnType<typeof mutateDatabase>): ParentObject {
  const out = structuredClone(object) as Loose;
  for (const op of patch) {
    const keys = op.path
      .split("/")
      .slice(1)
      .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
    const last = keys.pop() as string;
    const target = keys.reduce((o, k) => o[k], out);
    if (op.op === "remove") delete target[last];
    else target[last] = op.value;
  }
  return out as ParentObject;
}

describe("validating webhook: refusals name the field and the reason", () => {
  it.each([
    ["anything the schema refuses", { ...POSTGRES, replicas: 0 }, undefined, "spec.replicas"],
    [
      "an invalid cron schedule",
      { ...POSTGRES, backup: { schedule: "0 25 * * *" } },
      undefined,
      "spec.backup.schedule",
    ],
    [
      "a MongoDB replica set with an even member count",
      { engine: "mongodb", version: "7.0", replicas: 2, storage: { size: "1Gi" } },
      undefined,
      "odd number",
    ],
    [
      "an engine change",
      { ...POSTGRES, engine: "mysql", version: "8.4" },
      POSTGRES,
      "spec.engine: Forbidden",
    ],
    [
      "a smaller volume",
      { ...POSTGRES, storage: { size: "5Gi" } },
      POSTGRES,
      "spec.storage.size: Forbidden: cannot shrink from 10Gi to 5Gi",
    ],
    [
      "a storageClass change",
      { ...POSTGRES, storage: { size: "10Gi", storageClass: "fast" } },
      POSTGRES,
      "spec.storage.storageClass: Forbidden",
    ],
    [
      "a major version change",
      { ...POSTGRES, version: "17" },
      POSTGRES,
      "spec.version: Forbidden: major version change 16 -> 17",
    ],
    [
      "a minor downgrade",
      { ...POSTGRES, version: "16.2" },
      { ...POSTGRES, version: "16.4" },
      "spec.version: Forbidden: downgrade 16.4 -> 16.2",
    ],
  ])("refuses %s", (_case, spec, oldSpec, message) => {
    const decision = validate(spec, oldSpec);
    expect(decision.allowed).toBe(false);
    expect(decision.message).toContain(message);
  });

  it("refuses a name whose children would not fit", () => {
    const decision = validate(POSTGRES, undefined, { metadata: { name: "a".repeat(43), namespace: "shop" } });
    expect(decision).toMatchObject({ allowed: false, message: expect.stringContaining("metadata.name") });
  });

  it.each([
    ["a new Database", POSTGRES, undefined],
    ["a volume that grows", { ...POSTGRES, storage: { size: "20Gi" } }, POSTGRES],
    ["a minor upgrade", { ...POSTGRES, version: "16.4" }, POSTGRES],
    ["pinning a floating tag", { ...POSTGRES, version: "16.4" }, { ...POSTGRES, version: "16" }],
    [
      "an odd MongoDB replica set",
      { engine: "mongodb", version: "7.0", replicas: 3, storage: { size: "1Gi" } },
      undefined,
    ],
  ])("allows %s", (_case, spec, oldSpec) => {
    expect(validate(spec, oldSpec)).toMatchObject({ allowed: true });
  });

  it("never refuses an update that leaves the spec alone, even an invalid one (finalizers, deletion)", () => {
    const invalid = { ...POSTGRES, replicas: 99 };
    expect(validate(invalid, invalid).allowed).toBe(true);
  });

  it("warns, without refusing, about risky but valid choices", () => {
    const decision = validate({
      ...POSTGRES,
      replicas: 2,
      backup: { enabled: false },
      deletionPolicy: "Delete",
      resources: { limits: { memory: "2Gi" } },
    });
    expect(decision.allowed).toBe(true);
    expect(decision.warnings).toEqual([
      expect.stringContaining("spec.backup.enabled is false with replicas > 1"),
      expect.stringContaining("spec.replicas is 2: an even count"),
      expect.stringContaining("spec.resources overrides the small size preset"),
      expect.stringContaining("spec.deletionPolicy is Delete"),
    ]);
    expect(validate(POSTGRES).warnings).toEqual([]);
  });
});

describe("mutating webhook", () => {
  it("fills spec.resources from the size preset when none are given, and records the size", () => {
    const object = parent({ ...POSTGRES, size: "medium" });
    const patch = mutateDatabase(schema, object);
    expect(patch).toEqual([
      {
        op: "add",
        path: "/spec/resources",
        value: { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "750m", memory: "1536Mi" } },
      },
      { op: "add", path: "/metadata/annotations", value: { [RESOURCES_FROM_SIZE_ANNOTATION]: "medium" } },
    ]);
    const mutated = applyPatch(object, patch);
    expect(mutateDatabase(schema, mutated)).toEqual([]);
    // Whatever the key order the API server returns it in.
    const reordered = JSON.parse(JSON.stringify(mutated), (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
    );
    expect(mutateDatabase(schema, reordered)).toEqual([]);
    expect(validateDatabase(schema, mutated).warnings).toEqual([]);
  });

  it("never overwrites resources the user set", () => {
    expect(mutateDatabase(schema, parent({ ...POSTGRES, resources: { limits: { memory: "2Gi" } } }))).toEqual(
      [],
    );
  });

  it("follows a size change while the resources are still the ones it wrote", () => {
    const small = applyPatch(parent(POSTGRES), mutateDatabase(schema, parent(POSTGRES)));
    const resized = { ...small, spec: { ...(small.spec as object), size: "large" } };
    const patch = mutateDatabase(schema, resized);
    expect(patch).toEqual([
      {
        op: "replace",
        path: "/spec/resources",
        value: { requests: { cpu: "1", memory: "2Gi" }, limits: { cpu: "1500m", memory: "3Gi" } },
      },
      { op: "add", path: "/metadata/annotations/dbhooks.io~1resources-from-size", value: "large" },
    ]);
    expect(mutateDatabase(schema, applyPatch(resized, patch))).toEqual([]);
  });

  it("lets go of resources the user edited after defaulting", () => {
    const defaulted = applyPatch(parent(POSTGRES), mutateDatabase(schema, parent(POSTGRES)));
    const edited = {
      ...defaulted,
      spec: { ...(defaulted.spec as object), resources: { limits: { memory: "4Gi" } } },
    };
    expect(mutateDatabase(schema, edited)).toEqual([
      { op: "remove", path: "/metadata/annotations/dbhooks.io~1resources-from-size" },
    ]);
  });

  it("leaves an invalid Database to the validating webhook", () => {
    expect(mutateDatabase(schema, parent({ engine: "nope" }))).toEqual([]);
  });
});
