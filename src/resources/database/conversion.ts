// Conversion between the served versions of Database. v1alpha1 is the storage version; v1beta1 adds
// spec.highAvailability. Down-conversion keeps what v1alpha1 cannot hold in an annotation, so that a round
// trip in either direction gives back exactly what was written.
import { isRecord } from "../../metacontroller/observed.js";
import type { ParentObject } from "../../metacontroller/types.js";
import { sameJson } from "./json.js";
import { API_GROUP } from "./names.js";

export const V1ALPHA1 = `${API_GROUP}/v1alpha1`;
export const V1BETA1 = `${API_GROUP}/v1beta1`;
export const SERVED_VERSIONS = [V1ALPHA1, V1BETA1] as const;

/** Where a v1alpha1 object keeps a v1beta1 spec.highAvailability that is not the default. */
export const HIGH_AVAILABILITY_ANNOTATION = "dbhooks.io/high-availability";

export class ConversionError extends Error {}

type Json = Record<string, unknown>;

/** The value v1beta1 gives spec.highAvailability when nothing was written: enabled with replicas. */
export function defaultHighAvailability(spec: Json): Json {
  const replicas = typeof spec.replicas === "number" ? spec.replicas : 1;
  return { enabled: replicas > 1, autoFailover: false, failoverTimeout: "30s" };
}

/** The object with these annotations, and no annotations map when empty (as the API server stores it). */
function withAnnotations(object: ParentObject, annotations: Record<string, string>): ParentObject {
  const metadata = { ...object.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return { ...object, metadata };
}

function toV1alpha1(object: ParentObject): ParentObject {
  const spec = isRecord(object.spec) ? object.spec : {};
  const { highAvailability, ...rest } = spec;
  const annotations = { ...object.metadata?.annotations };
  // Only what differs from what v1beta1 would default to needs keeping.
  if (highAvailability !== undefined && !sameJson(highAvailability, defaultHighAvailability(rest))) {
    annotations[HIGH_AVAILABILITY_ANNOTATION] = JSON.stringify(highAvailability);
  } else {
    delete annotations[HIGH_AVAILABILITY_ANNOTATION];
  }
  return {
    ...withAnnotations(object, annotations),
    apiVersion: V1ALPHA1,
    ...(isRecord(object.spec) ? { spec: rest } : {}),
  };
}

function toV1beta1(object: ParentObject): ParentObject {
  const spec = isRecord(object.spec) ? object.spec : undefined;
  const { [HIGH_AVAILABILITY_ANNOTATION]: kept, ...annotations } = { ...object.metadata?.annotations };
  let highAvailability: unknown = spec ? defaultHighAvailability(spec) : undefined;
  if (kept !== undefined) {
    try {
      highAvailability = JSON.parse(kept);
    } catch {
      throw new ConversionError(`metadata.annotations[${HIGH_AVAILABILITY_ANNOTATION}]: not valid JSON`);
    }
  }
  const converted = { ...withAnnotations(object, annotations), apiVersion: V1BETA1 };
  return spec ? { ...converted, spec: { ...spec, highAvailability } } : converted;
}

/** `object` in `desiredAPIVersion`; an object already in that version comes back unchanged. */
export function convertDatabase(object: ParentObject, desiredAPIVersion: string): ParentObject {
  if (!SERVED_VERSIONS.includes(desiredAPIVersion as (typeof SERVED_VERSIONS)[number])) {
    throw new ConversionError(
      `desiredAPIVersion ${JSON.stringify(desiredAPIVersion)} is not served; served: ${SERVED_VERSIONS.join(", ")}`,
    );
  }
  if (!SERVED_VERSIONS.includes(object.apiVersion as (typeof SERVED_VERSIONS)[number])) {
    throw new ConversionError(
      `apiVersion ${JSON.stringify(object.apiVersion)} of ${object.metadata?.name} is not a served Database version`,
    );
  }
  if (object.apiVersion === desiredAPIVersion) return object;
  return desiredAPIVersion === V1ALPHA1 ? toV1alpha1(object) : toV1beta1(object);
}
