// Every manifest parses, and the manifests agree with the code: hook paths are routes the app serves, the
// CompositeController's children are exactly the kinds the hooks emit, the CRD is the one the code reads.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { hookRoutes } from "../src/http/app.js";
import { loadDatabaseSchema } from "../src/resources/database/index.js";
import { API_GROUP, KIND } from "../src/resources/database/names.js";
import { parseDatabase } from "../src/resources/database/spec.js";
import { loadResources } from "../src/resources/registry.js";
import { loadWebServiceSchema } from "../src/resources/webservice/index.js";
import { parseWebService } from "../src/resources/webservice/spec.js";
import { testApp } from "./support/app.js";
import type { Loose } from "./support/database.js";

const ROOT = new URL("../", import.meta.url).pathname;
const MANIFESTS = join(ROOT, "manifests");

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) ? [path] : [];
  });
}

const files = yamlFiles(MANIFESTS).sort();
const documents = files.flatMap((file) =>
  parseAllDocuments(readFileSync(file, "utf8")).map((doc) => ({ file: relative(MANIFESTS, file), doc })),
);
const isKustomization = (file: string) => file.endsWith("kustomization.yaml");
const objects = documents
  .filter(({ file }) => !isKustomization(file))
  .map(({ file, doc }) => ({ file, object: doc.toJS() as Loose }));

/** Every file a kustomization folder builds from, following the folders it lists (as kustomize does). */
function kustomized(dir: string): string[] {
  const kustomization = parseAllDocuments(
    readFileSync(join(MANIFESTS, dir, "kustomization.yaml"), "utf8"),
  )[0]?.toJS() as {
    resources: string[];
  };
  return kustomization.resources.flatMap((entry) => {
    const path = relative(MANIFESTS, join(MANIFESTS, dir, entry));
    expect(existsSync(join(MANIFESTS, path)), `${dir}/kustomization.yaml lists ${entry}`).toBe(true);
    return statSync(join(MANIFESTS, path)).isDirectory() ? kustomized(path) : [path];
  });
}
const ofKind = (kind: string) => objects.filter((o) => o.object.kind === kind).map((o) => o.object);
const resources = loadResources();
/** The update strategies that matter, per resource: what must follow the spec, what must never change. */
const UPDATE_METHODS: Record<string, Record<string, string>> = {
  database: {
    secrets: "OnDelete",
    statefulsets: "InPlace",
    services: "InPlace",
    configmaps: "InPlace",
    cronjobs: "InPlace",
    poddisruptionbudgets: "InPlace",
  },
  webservice: { deployments: "InPlace", services: "InPlace", ingresses: "InPlace" },
};

describe("manifests/", () => {
  it("holds only valid YAML documents, each a named Kubernetes object", () => {
    expect(files.length).toBeGreaterThan(5);
    for (const { file, doc } of documents) expect(doc.errors, file).toEqual([]);
    for (const { file, object } of objects) {
      expect(object.apiVersion, file).toEqual(expect.any(String));
      expect(object.kind, file).toEqual(expect.any(String));
      expect(object.metadata?.name, file).toEqual(expect.any(String));
    }
  });

  it("builds every file but the examples from manifests/ or its cert-manager overlay, and only files that exist", () => {
    const base = kustomized(".");
    const overlay = kustomized("overlays/cert-manager");
    // The overlay is the base plus the webhooks and their certificate.
    expect(overlay).toEqual(expect.arrayContaining(base));
    expect(overlay.filter((f) => !base.includes(f)).sort()).toEqual([
      "overlays/cert-manager/certificate.yaml",
      "webhooks/database.yaml",
    ]);
    const present = files
      .map((f) => relative(MANIFESTS, f))
      .filter((f) => !isKustomization(f) && !f.startsWith("examples/"));
    expect([...new Set(overlay)].sort()).toEqual(present.sort());
  });

  it("has a CRD per resource whose group, kind and storage version are the code's", () => {
    const crds = ofKind("CustomResourceDefinition");
    for (const resource of resources) {
      const crd = crds.find((c) => c.spec.names.kind === resource.crd.kind);
      expect(crd, resource.name).toBeDefined();
      expect(crd?.metadata.name).toBe(`${resource.crd.plural}.${resource.crd.group}`);
    }
    const database = crds.find((c) => c.spec.names.kind === KIND);
    expect(database?.spec.group).toBe(API_GROUP);
    expect(database?.spec.names.shortNames).toEqual(["db"]);
    expect(database?.spec.names.categories).toContain("dbhooks");
    const storage = database?.spec.versions.find((v: Loose) => v.storage);
    expect(storage?.name).toBe("v1alpha1");
    expect(storage?.subresources).toEqual({
      status: {},
      scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.readyReplicas" },
    });
    expect(storage?.additionalPrinterColumns.map((c: Loose) => c.name)).toEqual([
      "Engine",
      "Version",
      "Replicas",
      "Ready",
      "Phase",
      "Age",
    ]);
    const webService = crds.find((c) => c.spec.names.kind === "WebService");
    expect(webService?.spec.names.shortNames).toEqual(["ws"]);
    expect(webService?.spec.names.categories).toEqual(["all", "dbhooks"]);
    const webStorage = webService?.spec.versions.find((v: Loose) => v.storage);
    expect(webStorage?.subresources).toEqual({
      status: {},
      scale: {
        specReplicasPath: ".spec.replicas",
        statusReplicasPath: ".status.availableReplicas",
        labelSelectorPath: ".status.selector",
      },
    });
  });

  describe.each(resources.map((r) => [r.name, r] as const))(
    "the CompositeController for %s",
    (_name, resource) => {
      const controller = ofKind("CompositeController").find(
        (c) =>
          c.spec.parentResource.resource === resource.crd.plural &&
          c.spec.parentResource.apiVersion.startsWith(`${resource.crd.group}/`),
      ) as Loose;

      it("exists, with generateSelector and a resync period", () => {
        expect(controller).toBeDefined();
        expect(controller.spec.generateSelector).toBe(true);
        expect(controller.spec.resyncPeriodSeconds).toBeGreaterThan(0);
        const version = controller.spec.parentResource.apiVersion.split("/")[1];
        expect(resource.crd.versions.find((v) => v.name === version)?.served).toBe(true);
      });

      it("has a childResources rule for exactly the kinds the hooks emit, each with an explicit update strategy", () => {
        const rules = controller.spec.childResources as Loose[];
        const ruleKeys = rules.map((r) => `${r.apiVersion}/${r.resource}`).sort();
        expect(ruleKeys).toEqual(resource.childKinds.map((k) => `${k.apiVersion}/${k.resource}`).sort());
        for (const rule of rules)
          expect(["InPlace", "OnDelete", "Recreate", "RollingInPlace", "RollingRecreate"]).toContain(
            rule.updateStrategy?.method,
          );
        const method = (r: string) => rules.find((rule) => rule.resource === r)?.updateStrategy.method;
        for (const [r, expected] of Object.entries(UPDATE_METHODS[resource.name] ?? {}))
          expect(method(r), r).toBe(expected);
      });

      it("points its hooks at routes the app serves, through the dbhooks Service, with a timeout", async () => {
        const { app } = testApp();
        const routes = hookRoutes([resource]);
        const hooks = Object.entries(controller.spec.hooks as Record<string, Loose>);
        expect(hooks.map(([name]) => name).sort()).toEqual(
          resource.finalize ? ["finalize", "sync"] : ["sync"],
        );
        const service = ofKind("Service").find((s) => s.metadata.name === "dbhooks") as Loose;
        const deployment = ofKind("Deployment").find((d) => d.metadata.name === "dbhooks") as Loose;
        for (const [name, hook] of hooks) {
          const webhook = hook.webhook;
          expect(routes).toContain(webhook.path);
          expect(webhook.path).toBe(`/${resource.name}/${name}`);
          expect(webhook.timeout).toMatch(/^\d+s$/);
          expect(webhook.service).toMatchObject({
            name: service.metadata.name,
            namespace: service.metadata.namespace,
            protocol: "http",
          });
          const servicePort = service.spec.ports.find((p: Loose) => p.port === webhook.service.port);
          expect(servicePort).toBeDefined();
          const containerPort = deployment.spec.template.spec.containers[0].ports.find(
            (p: Loose) => p.name === servicePort.targetPort,
          );
          expect(containerPort?.containerPort).toBe(8080);
          // The route answers a hook request for real (not a 404 or 405).
          const response = await request(app)
            .post(webhook.path)
            .set("Content-Type", "application/json")
            .send({ parent: { metadata: { name: "probe" } } });
          expect(response.status).toBe(200);
        }
      });
    },
  );

  it("runs the hooks unprivileged, probed, with no API token, behind a NetworkPolicy and a PDB", () => {
    const deployment = ofKind("Deployment").find((d) => d.metadata.name === "dbhooks") as Loose;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    expect(deployment.spec.replicas).toBe(2);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.readinessProbe.httpGet.path).toBe("/readyz");
    expect(container.livenessProbe.httpGet.path).toBe("/healthz");
    expect(container.resources.requests).toBeDefined();
    expect(container.resources.limits).toBeDefined();
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => deployment.spec.template.metadata.labels[k] === v);
    const policy = ofKind("NetworkPolicy")[0] as Loose;
    expect(selects(policy.spec.podSelector.matchLabels)).toBe(true);
    expect(policy.spec.ingress[0].from[0].namespaceSelector.matchLabels).toEqual({
      "kubernetes.io/metadata.name": "metacontroller",
    });
    expect(selects((ofKind("PodDisruptionBudget")[0] as Loose).spec.selector.matchLabels)).toBe(true);
    expect(
      selects((ofKind("Service").find((s) => s.metadata.name === "dbhooks") as Loose).spec.selector),
    ).toBe(true);
    expect(ofKind("ServiceAccount")[0]?.automountServiceAccountToken).toBe(false);
  });

  it("ships examples that are valid Databases: postgres single and replicated, mysql, mongodb", () => {
    const schema = loadDatabaseSchema();
    const examples = objects
      .filter((o) => o.file.startsWith("examples/") && o.object.kind === "Database")
      .map((o) => o.object);
    expect(examples.map((e) => `${e.spec.engine}/${e.spec.replicas ?? 1}`).sort()).toEqual([
      "mongodb/1",
      "mysql/1",
      "postgresql/1",
      "postgresql/3",
    ]);
    for (const example of examples) {
      const parsed = parseDatabase(example, schema);
      expect(parsed.ok ? [] : parsed.errors, example.metadata.name).toEqual([]);
    }
  });

  it("ships a valid WebService example wired to the orders Database example", () => {
    const schema = loadWebServiceSchema();
    const examples = objects.filter((o) => o.file.startsWith("examples/") && o.object.kind === "WebService");
    expect(examples.map((e) => e.file)).toEqual(["examples/webservice.yaml"]);
    const example = examples[0]?.object as Loose;
    const parsed = parseWebService(example, schema);
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    expect(example.spec.databaseRef.name).toBe("orders");
    expect(ofKind("Database").map((d) => d.metadata.name)).toContain("orders");
  });
});
