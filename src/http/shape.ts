// What the API server guarantees about the objects in a hook request, for the fields the hooks read: a
// StatefulSet's readyReplicas is an integer, a container's image a string, a Job's conditions a list of
// objects. Metacontroller sends objects straight from the API server, so a request that breaks one of these
// is not a hook request: it gets a 400 here, and the pure hooks can rely on the types kubernetes-types gives
// them. Only the JSON type of each field is checked, never its value, and only fields whose type the
// Kubernetes API fixes (not int-or-string ones); everything else in an object passes untouched.
// A hand-written walk rather than ajv: no code generation, no memory to speak of, a few µs per request.
import { isRecord } from "../metacontroller/observed.js";

type Shape =
  | "string"
  | "integer"
  | "object"
  | { readonly map: Shape }
  | { readonly list: Shape }
  | { readonly fields: readonly (readonly [string, Shape])[] };

const fields = (shape: Record<string, Shape>): Shape => ({ fields: Object.entries(shape) });
const list = (items: Shape): Shape => ({ list: items });
const strings: Shape = { map: "string" };

const objectMeta = fields({
  name: "string",
  namespace: "string",
  uid: "string",
  resourceVersion: "string",
  generation: "integer",
  creationTimestamp: "string",
  deletionTimestamp: "string",
  labels: strings,
  annotations: strings,
  ownerReferences: list("object"),
});
const conditions = list(
  fields({
    type: "string",
    status: "string",
    reason: "string",
    message: "string",
    lastTransitionTime: "string",
  }),
);
const containers = list(fields({ name: "string", image: "string" }));
const podTemplate = fields({
  metadata: objectMeta,
  spec: fields({ containers, initContainers: containers }),
});
const replicaCounts = {
  observedGeneration: "integer",
  replicas: "integer",
  readyReplicas: "integer",
  updatedReplicas: "integer",
  availableReplicas: "integer",
  conditions,
} as const;

/** Any Kubernetes object, plus what its kind's API fixes for the fields it has. */
const kubeObject = (extra: Record<string, Shape> = {}): Shape =>
  fields({ apiVersion: "string", kind: "string", metadata: objectMeta, ...extra });

const KINDS: Readonly<Record<string, Shape>> = {
  StatefulSet: kubeObject({
    spec: fields({ replicas: "integer", template: podTemplate }),
    status: fields({
      ...replicaCounts,
      currentReplicas: "integer",
      currentRevision: "string",
      updateRevision: "string",
    }),
  }),
  Deployment: kubeObject({
    spec: fields({ replicas: "integer", template: podTemplate }),
    status: fields({ ...replicaCounts, unavailableReplicas: "integer" }),
  }),
  Service: kubeObject({
    spec: fields({
      type: "string",
      clusterIP: "string",
      ports: list(fields({ name: "string", port: "integer" })),
    }),
  }),
  CronJob: kubeObject({
    status: fields({ lastScheduleTime: "string", lastSuccessfulTime: "string", active: list("object") }),
  }),
  Job: kubeObject({
    status: fields({ conditions, succeeded: "integer", failed: "integer", active: "integer" }),
  }),
  Secret: kubeObject({ type: "string", data: strings, stringData: strings }),
  ConfigMap: kubeObject({ data: strings, binaryData: strings }),
  Ingress: kubeObject({
    spec: fields({
      ingressClassName: "string",
      rules: list(fields({ host: "string" })),
      tls: list(fields({ hosts: list("string"), secretName: "string" })),
    }),
    status: fields({ loadBalancer: fields({ ingress: list(fields({ ip: "string", hostname: "string" })) }) }),
  }),
};
const ANY_KIND = kubeObject();

/** A parent: any custom resource; its spec is the resource's own business (its CRD schema checks it). */
const PARENT = kubeObject({
  status: fields({
    phase: "string",
    message: "string",
    observedGeneration: "integer",
    readyReplicas: "integer",
    conditions,
  }),
});

const PRIMITIVES = {
  string: (value: unknown) => typeof value === "string",
  integer: (value: unknown) => Number.isInteger(value),
  object: isRecord,
} as const;
const ARTICLE = { string: "a string", integer: "an integer", object: "an object" } as const;

/** Where a value is not what its shape says: the path to it (built only on the way out) and what it should be. */
interface Mismatch {
  readonly path: string[];
  readonly expected: string;
}

function within(found: Mismatch | undefined, segment: string): Mismatch | undefined {
  found?.path.unshift(segment);
  return found;
}

function listMismatch(items: unknown, shape: Shape): Mismatch | undefined {
  if (!Array.isArray(items)) return { path: [], expected: "a list" };
  for (let i = 0; i < items.length; i++) {
    const found = mismatch(items[i], shape);
    if (found) return within(found, `[${i}]`);
  }
  return undefined;
}

function mapMismatch(value: Record<string, unknown>, shape: Shape): Mismatch | undefined {
  for (const key of Object.keys(value)) {
    const found = mismatch(value[key], shape);
    if (found) return within(found, `.${key}`);
  }
  return undefined;
}

function fieldsMismatch(value: Record<string, unknown>, shapes: readonly (readonly [string, Shape])[]) {
  for (const [key, shape] of shapes) {
    // No field name here is one Object.prototype has, so value[key] is never an inherited property.
    const field = value[key];
    if (field === undefined) continue;
    const found = mismatch(field, shape);
    if (found) return within(found, `.${key}`);
  }
  return undefined;
}

/** The first place where `value` does not have `shape`, or undefined. */
function mismatch(value: unknown, shape: Shape): Mismatch | undefined {
  if (typeof shape === "string")
    return PRIMITIVES[shape](value) ? undefined : { path: [], expected: ARTICLE[shape] };
  if ("list" in shape) return listMismatch(value, shape.list);
  if (!isRecord(value)) return { path: [], expected: "an object" };
  return "map" in shape ? mapMismatch(value, shape.map) : fieldsMismatch(value, shape.fields);
}

function problem(value: unknown, shape: Shape, where: () => string): string | undefined {
  const found = mismatch(value, shape);
  return found && `${where()}${found.path.join("")}: must be ${found.expected}`;
}

/** Why `object`, observed under `key` (<Kind>.<apiVersion>), is not what the API server sends; or undefined. */
export function childShapeProblem(key: string, object: unknown, where: () => string): string | undefined {
  return problem(object, KINDS[key.slice(0, key.indexOf("."))] ?? ANY_KIND, where);
}

/** Why `parent` is not what the API server sends; or undefined. */
export function parentShapeProblem(parent: unknown): string | undefined {
  return problem(parent, PARENT, () => "parent");
}
