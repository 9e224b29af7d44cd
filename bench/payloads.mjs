// The three hook requests the benchmark sends, built from the fixtures and from the compiled sync function
// itself (run `npm run build` first): nothing here is a hand-written copy that could drift from the code.
import { readFileSync } from "node:fs";
import { databaseResource } from "../dist/resources/database/index.js";

const ROOT = new URL("../", import.meta.url);
const LAST_APPLIED = "metacontroller.k8s.io/last-applied-configuration";
/** "A few hundred KB": the size of the large request's observed children. */
const LARGE_BYTES = 300 * 1024;

const contextFile = JSON.parse(readFileSync(new URL("hooks/context.json", ROOT), "utf8"));

/** The clock and key the fixtures were answered with; the server gets the same key. */
export const CONTEXT = {
  now: new Date(contextFile.now),
  credentialsKey: new TextEncoder().encode(contextFile.credentialsKey),
  finalBackupTimeoutSeconds: contextFile.finalBackupTimeoutSeconds,
};
export const CREDENTIALS_KEY = contextFile.credentialsKey;

function fixture(name) {
  return JSON.parse(readFileSync(new URL(`hooks/database/${name}/request.json`, ROOT), "utf8"));
}

/** Server-side apply's field set for an object: every key as "f:<key>", list items by name when they have one. */
function fieldsV1(value) {
  if (Array.isArray(value)) {
    const out = {};
    value.forEach((item, index) => {
      const key =
        item && typeof item === "object" && typeof item.name === "string"
          ? `k:${JSON.stringify({ name: item.name })}`
          : `i:${index}`;
      out[key] = { ".": {}, ...fieldsV1(item) };
    });
    return out;
  }
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [`f:${k}`, fieldsV1(v)]));
  }
  return {};
}

const TOOLS = [
  "kubectl-client-side-apply",
  "kubectl-edit",
  "kubectl-patch",
  "kubectl-label",
  "kubectl-annotate",
  "argocd-controller",
  "kustomize-controller",
  "helm",
  "velero",
  "gatekeeper-mutation",
  "kyverno",
];

/** What a busy cluster reports for a child: many managers' field sets, both last-applied annotations, a status. */
function observedLikeACluster(child, index, { replicas, tools }) {
  const { metadata, ...rest } = structuredClone(child);
  // Every tool that ever touched the object leaves a field set: a long-lived object collects a dozen.
  const managers = [
    ["metacontroller", "Update", rest],
    ["kube-controller-manager", "Update", { status: {} }],
    ...tools.map((manager) => [manager, "Update", { metadata: { labels: metadata.labels }, ...rest }]),
  ];
  const observed = {
    ...rest,
    metadata: {
      ...metadata,
      uid: `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`,
      resourceVersion: String(918273 + index),
      generation: 3,
      creationTimestamp: "2026-01-15T08:00:00Z",
      annotations: {
        ...metadata.annotations,
        [LAST_APPLIED]: JSON.stringify(child),
        "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify(child),
      },
      ownerReferences: [
        {
          apiVersion: "dbhooks.io/v1alpha1",
          kind: "Database",
          name: "ledger",
          uid: "5e0b5c1a-0000-4000-8000-00000000beef",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: managers.map(([manager, operation, fields]) => ({
        manager,
        operation,
        apiVersion: child.apiVersion,
        time: "2026-02-28T23:59:59Z",
        fieldsType: "FieldsV1",
        fieldsV1: fieldsV1(fields),
      })),
    },
  };
  if (child.kind === "StatefulSet") {
    observed.status = {
      observedGeneration: 3,
      replicas,
      readyReplicas: replicas,
      currentReplicas: replicas,
      updatedReplicas: replicas,
      availableReplicas: replicas,
      currentRevision: "ledger-db-7c9d8f6b5",
      updateRevision: "ledger-db-7c9d8f6b5",
      collisionCount: 0,
    };
  }
  if (child.kind === "CronJob") {
    observed.status = {
      lastScheduleTime: "2026-03-01T02:00:00Z",
      lastSuccessfulTime: "2026-03-01T02:00:41Z",
    };
  }
  return observed;
}

/** The tools, named and then numbered, whose field sets make the large request at least `bytes` long. */
function tools(count) {
  return Array.from({ length: count }, (_, i) => TOOLS[i] ?? `tool-${i - TOOLS.length + 1}`);
}

/** 7 replicas, every child observed with the managedFields of many managers: LARGE_BYTES or a little more. */
function large(database) {
  const parent = {
    apiVersion: "dbhooks.io/v1alpha1",
    kind: "Database",
    metadata: {
      name: "ledger",
      namespace: "payments",
      uid: "5e0b5c1a-0000-4000-8000-00000000beef",
      generation: 3,
      creationTimestamp: "2026-01-15T08:00:00Z",
    },
    spec: {
      engine: "postgresql",
      version: "17.2",
      replicas: 7,
      size: "large",
      storage: { size: "500Gi", storageClass: "fast-ssd" },
      backup: { enabled: true, schedule: "15 1 * * *", retention: 30 },
      deletionPolicy: "Retain",
    },
  };
  const first = database.sync({ parent, children: {} }, CONTEXT);
  let children = {};
  for (let count = TOOLS.length; JSON.stringify(children).length < LARGE_BYTES; count++) {
    children = {};
    for (const [index, child] of first.children.entries()) {
      const key = `${child.kind}.${child.apiVersion}`;
      const observed = observedLikeACluster(child, index, { replicas: 7, tools: tools(count) });
      children[key] = { ...children[key], [child.metadata.name]: observed };
    }
  }
  const running = database.sync({ parent, children }, CONTEXT);
  return { parent: { ...parent, status: running.status }, children };
}

/**
 * { name, description, request, body, answer }: `answer` is what the sync function returns for `request`,
 * which the ceiling server sends back so that both servers write the same number of bytes.
 */
export function payloads() {
  const database = databaseResource();
  const requests = [
    ["new", "a new Database, nothing observed", fixture("postgresql-single")],
    ["realistic", "3 replicas, every child observed and ready", fixture("postgresql-replicas-running")],
    ["large", "7 replicas, observed children with managedFields", large(database)],
  ];
  return requests.map(([name, description, request]) => ({
    name,
    description,
    request,
    body: JSON.stringify(request),
    answer: database.sync(request, CONTEXT),
    database,
  }));
}
