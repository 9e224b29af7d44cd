// Reads a CustomResourceDefinition from manifests/ and compiles its openAPIV3Schema with ajv, so that the
// hooks validate and default a parent exactly as the API server would (the CRD is the one source of truth).
import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { parse } from "yaml";

export type JsonSchema = Record<string, unknown>;

export interface CrdVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly schema: JsonSchema;
}

export interface Crd {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly versions: readonly CrdVersion[];
}

/** The validators a resource needs: defaults + validation for spec, validation for status. */
export interface CompiledSchema {
  readonly crd: Crd;
  /** Validates the parent's spec (after applying the schema's defaults to `spec` in place). */
  readonly validateSpec: (spec: unknown) => readonly string[];
  readonly validateStatus: (status: unknown) => readonly string[];
}

// Kubernetes' structural-schema extensions; declared so that ajv's strict mode still catches typos.
const KUBERNETES_KEYWORDS = [
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-int-or-string",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
];

// RFC 3339 as Kubernetes writes it (metav1.Time): second precision or finer, Z or an offset.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function readCrd(file: string | URL): Crd {
  const doc = parse(readFileSync(file, "utf8")) as {
    spec: {
      group: string;
      names: { kind: string; plural: string };
      versions: {
        name: string;
        served: boolean;
        storage: boolean;
        schema: { openAPIV3Schema: JsonSchema };
      }[];
    };
  };
  return {
    group: doc.spec.group,
    kind: doc.spec.names.kind,
    plural: doc.spec.names.plural,
    versions: doc.spec.versions.map((v) => ({
      name: v.name,
      served: v.served,
      storage: v.storage,
      schema: v.schema.openAPIV3Schema,
    })),
  };
}

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false });
  for (const keyword of KUBERNETES_KEYWORDS) ajv.addKeyword({ keyword });
  ajv.addFormat("date-time", DATE_TIME);
  ajv.addFormat("int64", { type: "number", validate: Number.isSafeInteger });
  return ajv;
}

function propertySchema(schema: JsonSchema, name: string): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const found = properties?.[name];
  if (!found) throw new Error(`CRD schema has no .${name}`);
  return found;
}

/** "/spec/storage" + missingProperty "size" -> "spec.storage.size". */
function fieldPath(root: string, error: ErrorObject): string {
  const parts = error.instancePath.split("/").filter((p) => p !== "");
  if (error.keyword === "required") parts.push(String(error.params.missingProperty));
  return [root, ...parts].join(".");
}

export function describeError(root: string, error: ErrorObject): string {
  const field = fieldPath(root, error);
  switch (error.keyword) {
    case "required":
      return `${field}: Required value`;
    case "enum":
      return `${field}: Unsupported value: must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "pattern":
      return `${field}: Invalid value: must match ${String(error.params.pattern)}`;
    default:
      return `${field}: Invalid value: ${error.message ?? "invalid"}`;
  }
}

function messages(root: string, validate: ValidateFunction): readonly string[] {
  return (validate.errors ?? []).map((e) => describeError(root, e));
}

export function compileSchema(crd: Crd, versionName?: string): CompiledSchema {
  const version = crd.versions.find((v) => (versionName ? v.name === versionName : v.storage));
  if (!version)
    throw new Error(`CRD ${crd.plural}.${crd.group} has no version ${versionName ?? "(storage)"}`);
  const ajv = newAjv();
  const spec = ajv.compile(propertySchema(version.schema, "spec"));
  const status = ajv.compile(propertySchema(version.schema, "status"));
  return {
    crd,
    validateSpec: (value) => (spec(value) ? [] : messages("spec", spec)),
    validateStatus: (value) => (status(value) ? [] : messages("status", status)),
  };
}
