// The admission and conversion webhooks in manifests/ agree with the app: every path is a route it serves,
// through the https port of the dbhooks Service, which reaches the port dbhooks serves TLS on.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { webhookRoutes } from "../src/http/app.js";
import { loadResources } from "../src/resources/registry.js";
import type { Loose } from "./support/database.js";

const MANIFESTS = new URL("../manifests/", import.meta.url).pathname;
const read = (file: string): Loose[] =>
  parseAllDocuments(readFileSync(join(MANIFESTS, file), "utf8")).map((d) => d.toJS());
const routes = webhookRoutes(loadResources());
const [service] = read("deploy/service.yaml");
const [deployment] = read("deploy/deployment.yaml");

function expectReachable(clientConfig: Loose): void {
  expect(clientConfig.service).toMatchObject({
    name: service?.metadata.name,
    namespace: service?.metadata.namespace,
  });
  expect(routes).toContain(clientConfig.service.path);
  const port = service?.spec.ports.find((p: Loose) => p.port === clientConfig.service.port);
  expect(port?.name).toBe("https");
  const container = deployment?.spec.template.spec.containers[0];
  const containerPort = container.ports.find((p: Loose) => p.name === port.targetPort);
  const tlsPort = container.env.find((e: Loose) => e.name === "DBHOOKS_TLS_PORT")?.value;
  expect(String(containerPort?.containerPort)).toBe(tlsPort);
}

describe("webhook manifests", () => {
  it("serves validate, mutate and convert for Database", () => {
    expect(routes).toEqual(
      expect.arrayContaining(["/database/validate", "/database/mutate", "/database/convert"]),
    );
  });

  it("scopes both admission webhooks to databases, v1, no side effects, with a timeout", () => {
    const configurations = read("webhooks/database.yaml");
    expect(configurations.map((c) => c.kind).sort()).toEqual([
      "MutatingWebhookConfiguration",
      "ValidatingWebhookConfiguration",
    ]);
    for (const configuration of configurations) {
      for (const webhook of configuration.webhooks as Loose[]) {
        expect(webhook).toMatchObject({
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
          matchPolicy: "Equivalent",
        });
        expect(webhook.timeoutSeconds).toBeLessThanOrEqual(10);
        expect(webhook.rules).toEqual([
          {
            apiGroups: ["dbhooks.io"],
            apiVersions: ["v1alpha1"],
            operations: ["CREATE", "UPDATE"],
            resources: ["databases"],
            scope: "Namespaced",
          },
        ]);
        expectReachable(webhook.clientConfig);
      }
    }
    const validating = configurations.find((c) => c.kind === "ValidatingWebhookConfiguration");
    expect(validating?.webhooks[0].failurePolicy).toBe("Fail");
  });

  it("converts through the CRD's conversion webhook, between the two served versions", () => {
    const [crd] = read("crds/database.yaml");
    expect(crd?.spec.versions.map((v: Loose) => [v.name, v.served, v.storage])).toEqual([
      ["v1alpha1", true, true],
      ["v1beta1", true, false],
    ]);
    expect(crd?.spec.conversion).toMatchObject({
      strategy: "Webhook",
      webhook: { conversionReviewVersions: ["v1"] },
    });
    expectReachable(crd?.spec.conversion.webhook.clientConfig);
  });
});
