// The Database as the hooks see it: the parent's spec validated and defaulted by the CRD's own schema,
// plus the checks a schema cannot express (name lengths, supported versions, cron field ranges).

import { isRecord } from "../../metacontroller/observed.js";
import { parentIdentity } from "../../metacontroller/parent.js";
import type { ParentObject } from "../../metacontroller/types.js";

export { parentIdentity } from "../../metacontroller/parent.js";

import type { CompiledSchema } from "../../schema/crd.js";
import { invalidCronSchedule } from "./cron.js";
import { profileFor } from "./engines/index.js";
import { invalidDatabaseName } from "./names.js";

export type Engine = "postgresql" | "mysql" | "mongodb";
export type Size = "small" | "medium" | "large";

export interface ResourceValues {
  cpu?: string;
  memory?: string;
}

export interface DatabaseSpec {
  engine: Engine;
  version: string;
  replicas: number;
  size: Size;
  storage: { size: string; storageClass?: string };
  backup: { enabled: boolean; schedule: string; retention: number; claimName?: string };
  resources?: { requests?: ResourceValues; limits?: ResourceValues };
  deletionPolicy: "Retain" | "Delete";
}

export interface Database {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly generation: number;
  readonly deletionTimestamp: string | undefined;
  readonly spec: DatabaseSpec;
}

export type ParseResult = { ok: true; database: Database } | { ok: false; errors: readonly string[] };

/** v1beta1's spec is v1alpha1's plus highAvailability, which the hooks do not read yet. */
function storageSpec(parent: ParentObject): unknown {
  const version = String(parent.apiVersion ?? "").split("/")[1];
  if (version !== "v1beta1" || !isRecord(parent.spec)) return parent.spec;
  const { highAvailability: _ignored, ...spec } = parent.spec;
  return spec;
}

export function parseDatabase(parent: ParentObject, schema: CompiledSchema): ParseResult {
  const identity = parentIdentity(parent);
  const nameError = invalidDatabaseName(identity.name);
  if (nameError) return { ok: false, errors: [nameError] };
  const written = storageSpec(parent);
  if (!isRecord(written)) return { ok: false, errors: ["spec: Required value"] };
  // structuredClone: the schema's defaults are applied in place and the request must stay untouched.
  const spec: unknown = structuredClone(written);
  const schemaErrors = schema.validateSpec(spec);
  if (schemaErrors.length > 0) return { ok: false, errors: schemaErrors };
  const valid = spec as DatabaseSpec;
  const errors = semanticErrors(valid);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, database: { ...identity, spec: valid } };
}

function semanticErrors(spec: DatabaseSpec): string[] {
  const errors: string[] = [];
  const versionError = profileFor(spec.engine).unsupportedVersion(spec.version);
  if (versionError) errors.push(`spec.version: Unsupported value: "${spec.version}": ${versionError}`);
  const cronError = invalidCronSchedule(spec.backup.schedule);
  if (cronError) errors.push(`spec.backup.schedule: Invalid value: "${spec.backup.schedule}": ${cronError}`);
  return errors;
}

export function majorVersion(version: string): number {
  return Number.parseInt(version.split(".")[0] ?? "", 10);
}
