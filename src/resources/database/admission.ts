// Admission rules for Database: what the schema cannot see (the old object, the engine, the name's
// children). Pure: an object (and the old one) in, a decision or a JSONPatch out.
import { isRecord } from "../../metacontroller/observed.js";
import type { ParentObject } from "../../metacontroller/types.js";
import type { CompiledSchema } from "../../schema/crd.js";
import type { Decision, JsonPatchOperation } from "../resource.js";
import { versionParts } from "./engines/profile.js";
import { sameJson } from "./json.js";
import { type ContainerResources, containerResources, memoryBytes } from "./resources.js";
import { type DatabaseSpec, majorVersion, parseDatabase } from "./spec.js";

/** The size whose preset the mutating webhook wrote into spec.resources, so a later size change can follow. */
export const RESOURCES_FROM_SIZE_ANNOTATION = "dbhooks.io/resources-from-size";

function specOf(object: ParentObject | undefined): Record<string, unknown> | undefined {
  return isRecord(object?.spec) ? object.spec : undefined;
}

/** Lower at the first differing component of the parts both versions name ("16" and "16.4" do not compare). */
function isDowngrade(from: string, to: string): boolean {
  const a = versionParts(from);
  const b = versionParts(to);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if ((b[i] ?? 0) !== (a[i] ?? 0)) return (b[i] ?? 0) < (a[i] ?? 0);
  }
  return false;
}

function updateRefusals(old: DatabaseSpec, next: DatabaseSpec): string[] {
  const refusals: string[] = [];
  if (old.engine !== next.engine) {
    refusals.push(
      `spec.engine: Forbidden: cannot change from ${old.engine} to ${next.engine}: the volumes hold ${old.engine} data; create a new Database and migrate`,
    );
  }
  if (memoryBytes(next.storage.size) < memoryBytes(old.storage.size)) {
    refusals.push(
      `spec.storage.size: Forbidden: cannot shrink from ${old.storage.size} to ${next.storage.size}: volumes only grow`,
    );
  }
  if ((old.storage.storageClass ?? "") !== (next.storage.storageClass ?? "")) {
    refusals.push(
      `spec.storage.storageClass: Forbidden: cannot change from ${old.storage.storageClass ?? "(cluster default)"} to ${next.storage.storageClass ?? "(cluster default)"}: existing volumes keep their class`,
    );
  }
  if (old.engine === next.engine && majorVersion(old.version) !== majorVersion(next.version)) {
    refusals.push(
      `spec.version: Forbidden: major version change ${old.version} -> ${next.version} is not supported in place; dump and restore into a new Database`,
    );
  } else if (old.engine === next.engine && isDowngrade(old.version, next.version)) {
    refusals.push(
      `spec.version: Forbidden: downgrade ${old.version} -> ${next.version}: a data directory written by a newer version may not open with an older one`,
    );
  }
  return refusals;
}

function warnings(spec: DatabaseSpec, annotations: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  if (spec.replicas > 1 && !spec.backup.enabled) {
    out.push(
      "spec.backup.enabled is false with replicas > 1: replicas copy mistakes too; a dump is what brings data back",
    );
  }
  if (spec.engine !== "mongodb" && spec.replicas > 1 && spec.replicas % 2 === 0) {
    out.push(
      `spec.replicas is ${spec.replicas}: an even count tolerates no more failures than ${spec.replicas - 1}`,
    );
  }
  const fromSize = annotations?.[RESOURCES_FROM_SIZE_ANNOTATION];
  const defaulted =
    fromSize !== undefined && sameJson(spec.resources, presetResources(fromSize as DatabaseSpec["size"]));
  if (spec.resources !== undefined && !defaulted) {
    out.push(
      `spec.resources overrides the ${spec.size} size preset; the engine is tuned from the resulting memory limit`,
    );
  }
  if (spec.deletionPolicy === "Delete") {
    out.push("spec.deletionPolicy is Delete: deleting this Database deletes its data volumes");
  }
  return out;
}

/** The validating webhook's decision for a CREATE or UPDATE. */
export function validateDatabase(
  schema: CompiledSchema,
  object: ParentObject,
  oldObject?: ParentObject,
): Decision {
  // An update that leaves the spec alone (finalizers, labels, deletion) is never refused: refusing it
  // could keep a Database that predates these rules from ever being deleted.
  if (oldObject && sameJson(specOf(oldObject), specOf(object))) return { allowed: true, warnings: [] };
  const parsed = parseDatabase(object, schema);
  if (!parsed.ok) return { allowed: false, message: parsed.errors.join("; "), warnings: [] };
  const { spec } = parsed.database;
  const refusals: string[] = [];
  if (spec.engine === "mongodb" && spec.replicas % 2 === 0) {
    refusals.push(
      `spec.replicas: Invalid value: ${spec.replicas}: a MongoDB replica set needs an odd number of members to elect a primary by majority`,
    );
  }
  const old = oldObject ? parseDatabase(oldObject, schema) : undefined;
  if (old?.ok) refusals.push(...updateRefusals(old.database.spec, spec));
  if (refusals.length > 0) return { allowed: false, message: refusals.join("; "), warnings: [] };
  return { allowed: true, warnings: warnings(spec, object.metadata?.annotations) };
}

function presetResources(size: DatabaseSpec["size"]): ContainerResources {
  return containerResources({ size } as DatabaseSpec);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

function annotationPatch(object: ParentObject, value: string | undefined): JsonPatchOperation[] {
  const annotations = object.metadata?.annotations;
  const path = `/metadata/annotations/${escapePointer(RESOURCES_FROM_SIZE_ANNOTATION)}`;
  if (value === undefined)
    return annotations?.[RESOURCES_FROM_SIZE_ANNOTATION] === undefined ? [] : [{ op: "remove", path }];
  if (annotations?.[RESOURCES_FROM_SIZE_ANNOTATION] === value) return [];
  if (!annotations)
    return [{ op: "add", path: "/metadata/annotations", value: { [RESOURCES_FROM_SIZE_ANNOTATION]: value } }];
  return [{ op: "add", path, value }];
}

/**
 * The mutating webhook's patch: spec.resources from the size preset when none are given, so that
 * `kubectl get db -o yaml` shows what the pods get. Resources it wrote follow later size changes until the
 * user edits them; what the user set is never overwritten. Mutating a mutated object yields no patch.
 */
export function mutateDatabase(schema: CompiledSchema, object: ParentObject): JsonPatchOperation[] {
  const parsed = parseDatabase(object, schema);
  // The validating webhook refuses what cannot be parsed, with the reason; nothing to default here.
  if (!parsed.ok) return [];
  const { spec } = parsed.database;
  const written = specOf(object)?.resources;
  const fromSize = object.metadata?.annotations?.[RESOURCES_FROM_SIZE_ANNOTATION] as
    | DatabaseSpec["size"]
    | undefined;
  const preset = presetResources(spec.size);
  const empty = written === undefined || (isRecord(written) && Object.keys(written).length === 0);
  if (empty) {
    return [{ op: "add", path: "/spec/resources", value: preset }, ...annotationPatch(object, spec.size)];
  }
  if (fromSize !== undefined && sameJson(written, presetResources(fromSize))) {
    // Still exactly what we wrote: follow the size.
    if (fromSize === spec.size) return [];
    return [{ op: "replace", path: "/spec/resources", value: preset }, ...annotationPatch(object, spec.size)];
  }
  // The user's own resources: they are theirs now.
  return annotationPatch(object, undefined);
}
