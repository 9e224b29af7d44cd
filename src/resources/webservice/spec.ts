// The WebService as the hook sees it: the parent's spec validated and defaulted by the CRD's own schema,
// plus the checks a schema cannot express (a host when the Ingress is on, unique variable names, requests
// within limits, annotation keys): each of them would otherwise be refused by the API server on every sync.
import { isRecord } from "../../metacontroller/observed.js";
import { type ParentIdentity, parentIdentity } from "../../metacontroller/parent.js";
import type { ParentObject } from "../../metacontroller/types.js";
import type { CompiledSchema } from "../../schema/crd.js";
import { DATABASE_ENV, invalidWebServiceName } from "./names.js";

export interface ResourceValues {
  cpu?: string;
  memory?: string;
}

export interface EnvEntry {
  name: string;
  value?: string;
}

export interface IngressSpec {
  enabled: boolean;
  host?: string;
  tls: boolean;
  className?: string;
  annotations?: Record<string, string>;
}

export interface WebServiceSpec {
  image: string;
  replicas: number;
  port: number;
  resources?: { requests?: ResourceValues; limits?: ResourceValues };
  env?: EnvEntry[];
  ingress: IngressSpec;
  databaseRef?: { name: string };
}

export interface WebService extends ParentIdentity {
  readonly spec: WebServiceSpec;
}

export type ParseResult = { ok: true; webService: WebService } | { ok: false; errors: readonly string[] };

export function parseWebService(parent: ParentObject, schema: CompiledSchema): ParseResult {
  const identity = parentIdentity(parent);
  const nameError = invalidWebServiceName(identity.name);
  if (nameError) return { ok: false, errors: [nameError] };
  if (!isRecord(parent.spec)) return { ok: false, errors: ["spec: Required value"] };
  // structuredClone: the schema's defaults are applied in place and the request must stay untouched.
  const spec: unknown = structuredClone(parent.spec);
  const schemaErrors = schema.validateSpec(spec);
  if (schemaErrors.length > 0) return { ok: false, errors: schemaErrors };
  const valid = spec as WebServiceSpec;
  const errors = [...ingressErrors(valid.ingress), ...envErrors(valid), ...resourceErrors(valid)];
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, webService: { ...identity, spec: valid } };
}

function ingressErrors(ingress: IngressSpec): string[] {
  const errors: string[] = [];
  if (ingress.enabled && !ingress.host)
    errors.push(
      "spec.ingress.host: Required value: an Ingress needs a host when spec.ingress.enabled is true",
    );
  for (const key of Object.keys(ingress.annotations ?? {}).sort()) {
    if (!isQualifiedName(key))
      errors.push(
        `spec.ingress.annotations: Invalid value: ${JSON.stringify(key)}: an annotation key is an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
      );
  }
  return errors;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function isQualifiedName(key: string): boolean {
  const slash = key.lastIndexOf("/");
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && !(prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix))) return false;
  return name.length <= 63 && QUALIFIED_NAME_PART.test(name);
}

/**
 * Every name once: Metacontroller merges env lists by name, so a duplicate would flap on every sync. A name
 * that databaseRef injects is refused rather than silently overridden, so that a half-wired set of database
 * variables can never reach a pod.
 */
function envErrors(spec: WebServiceSpec): string[] {
  const errors: string[] = [];
  const seen = new Set<string>();
  const injected = new Set(spec.databaseRef ? DATABASE_ENV.map((e) => e.name) : []);
  for (const [index, { name }] of (spec.env ?? []).entries()) {
    const field = `spec.env[${index}].name`;
    if (injected.has(name))
      errors.push(
        `${field}: Invalid value: "${name}": set from the credentials of spec.databaseRef "${spec.databaseRef?.name}"; remove it from spec.env`,
      );
    else if (seen.has(name)) errors.push(`${field}: Duplicate value: "${name}"`);
    seen.add(name);
  }
  return errors;
}

const BINARY: Record<string, number> = { Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
const DECIMAL: Record<string, number> = { M: 1e6, G: 1e9, T: 1e12 };

/** "512Mi" -> bytes; "500m" -> millicores; the CRD's patterns guarantee the shapes. */
function magnitude(resource: "cpu" | "memory", quantity: string): number {
  const match = /^(\d+)(\D*)$/.exec(quantity);
  const amount = Number(match?.[1] ?? 0);
  const unit = match?.[2] ?? "";
  if (resource === "cpu") return unit === "m" ? amount : amount * 1000;
  return amount * (BINARY[unit] ?? DECIMAL[unit] ?? 1);
}

/** The API server refuses a container whose request exceeds its limit. */
function resourceErrors(spec: WebServiceSpec): string[] {
  const errors: string[] = [];
  for (const resource of ["cpu", "memory"] as const) {
    const request = spec.resources?.requests?.[resource];
    const limit = spec.resources?.limits?.[resource];
    if (request && limit && magnitude(resource, request) > magnitude(resource, limit))
      errors.push(
        `spec.resources.requests.${resource}: Invalid value: "${request}": must be less than or equal to ${resource} limit of ${limit}`,
      );
  }
  return errors;
}
