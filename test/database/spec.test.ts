import { describe, expect, it } from "vitest";
import { invalidCronSchedule } from "../../src/resources/database/cron.js";
import { loadDatabaseSchema } from "../../src/resources/database/index.js";
import { invalidDatabaseName } from "../../src/resources/database/names.js";
import { parseDatabase } from "../../src/resources/database/spec.js";
import { POSTGRES, parent } from "../support/database.js";

const schema = loadDatabaseSchema();

describe("the CRD schema as the hooks apply it", () => {
  it("fills the schema's defaults, nested ones included", () => {
    const parsed = parseDatabase(parent(POSTGRES), schema);
    expect(parsed).toMatchObject({
      ok: true,
      database: {
        name: "orders",
        namespace: "shop",
        spec: {
          replicas: 1,
          size: "small",
          deletionPolicy: "Retain",
          backup: { enabled: true, schedule: "0 2 * * *", retention: 7 },
        },
      },
    });
  });

  it("names every bad field, in the API server's words", () => {
    const parsed = parseDatabase(
      parent({
        engine: "db2",
        version: "v16",
        replicas: 8,
        storage: { size: "1PB" },
        backup: { retention: 0 },
      }),
      schema,
    );
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toEqual(
      expect.arrayContaining([
        'spec.engine: Unsupported value: must be one of "postgresql", "mysql", "mongodb"',
        expect.stringMatching(/^spec\.version: Invalid value: must match/),
        "spec.replicas: Invalid value: must be <= 7",
        expect.stringMatching(/^spec\.storage\.size: Invalid value/),
        "spec.backup.retention: Invalid value: must be >= 1",
      ]),
    );
  });

  it("requires engine, version and storage.size", () => {
    const parsed = parseDatabase(parent({ storage: {} }), schema);
    expect(parsed.ok ? [] : parsed.errors).toEqual(
      expect.arrayContaining([
        "spec.engine: Required value",
        "spec.version: Required value",
        "spec.storage.size: Required value",
      ]),
    );
  });

  it("refuses a name that cannot name its Services and CronJob", () => {
    expect(invalidDatabaseName("orders")).toBeUndefined();
    expect(invalidDatabaseName("Orders")).toMatch(/DNS-1035/);
    expect(invalidDatabaseName("9lives")).toMatch(/DNS-1035/);
    expect(invalidDatabaseName("a".repeat(42))).toBeUndefined();
    expect(invalidDatabaseName("a".repeat(43))).toMatch(/at most 42/);
  });

  it("supports only the versions the official images ship", () => {
    const ok = (engine: string, version: string) =>
      parseDatabase(parent({ engine, version, storage: { size: "1Gi" } }), schema).ok;
    expect(ok("postgresql", "14")).toBe(true);
    expect(ok("postgresql", "18.1")).toBe(true);
    expect(ok("postgresql", "13")).toBe(false);
    expect(ok("mysql", "8.4")).toBe(true);
    expect(ok("mysql", "8.0")).toBe(false);
    expect(ok("mysql", "9.1")).toBe(true);
    expect(ok("mongodb", "7.0")).toBe(true);
    expect(ok("mongodb", "6.0")).toBe(false);
  });
});

describe("cron schedules", () => {
  it.each([
    "0 2 * * *",
    "*/15 * * * *",
    "0 0 1,15 * MON-FRI",
    "30 3 * jan-mar sun",
    "0 0 ? * 0",
    "5-10/2 0-23 1-31 1-12 0-6",
  ])("accepts %s", (schedule) => expect(invalidCronSchedule(schedule)).toBeUndefined());
  it.each([
    ["60 * * * *", "minute"],
    ["* 24 * * *", "hour"],
    ["* * 0 * *", "day of month"],
    ["* * * 13 *", "month"],
    ["* * * * 7", "day of week"],
    ["* * * * FOO", "day of week"],
    ["10-5 * * * *", "empty range"],
    ["*/0 * * * *", "step"],
    ["* * * *", "5 fields"],
  ])("refuses %s (%s)", (schedule, why) => expect(invalidCronSchedule(schedule)).toContain(why));
});
