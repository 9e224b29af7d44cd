import { existsSync } from "node:fs";
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type V1CustomResourceDefinition,
  VersionApi,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "./control-plane.js";

// First run builds the binaries (can take 20+ minutes); globalSetup normally did that already.
const BUILD_TIMEOUT_MS = 40 * 60_000;

const GROUP = "harness.dbhooks.test";

const widgetCrd: V1CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                required: ["size"],
                properties: { size: { type: "integer", minimum: 1 } },
              },
              // client-node's typed models spell x-kubernetes-* keys with underscores (see report).
              status: { type: "object", x_kubernetes_preserve_unknown_fields: true },
            },
          },
        },
      },
    ],
  },
};

async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("control-plane harness", () => {
  let cp: ControlPlane;

  beforeAll(async () => {
    const started = Date.now();
    cp = await startControlPlane();
    console.log(`control plane ready at ${cp.server} in ${Date.now() - started} ms (${cp.dir})`);
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    if (!cp) return;
    const dir = cp.dir;
    await cp.stop();
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  it("serves the pinned Kubernetes version", async () => {
    const info = await cp.kubeConfig.makeApiClient(VersionApi).getCode();
    expect(info.gitVersion).toMatch(/^v1\.\d+\.\d+/);
    expect(info.major).toBe("1");
  });

  it("creates and reads back a namespace and a ConfigMap", async () => {
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: "harness" } } });
    await core.createNamespacedConfigMap({
      namespace: "harness",
      body: { metadata: { name: "settings" }, data: { greeting: "hello" } },
    });
    const cm = await core.readNamespacedConfigMap({ name: "settings", namespace: "harness" });
    expect(cm.data).toEqual({ greeting: "hello" });
    expect(cm.metadata?.uid).toBeTruthy();
  });

  it("rejects an invalid object like a real cluster does", async () => {
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    await expect(
      core.createNamespacedConfigMap({
        namespace: "harness",
        body: { metadata: { name: "Not_A_Valid_Name" } },
      }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it("establishes a CustomResourceDefinition and serves its resources", async () => {
    const ext = cp.kubeConfig.makeApiClient(ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({ body: widgetCrd });
    await waitUntil("the Widget CRD to be Established", 30_000, async () => {
      const crd = await ext.readCustomResourceDefinition({ name: `widgets.${GROUP}` });
      return (crd.status?.conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
    });

    const stored = await ext.readCustomResourceDefinition({ name: `widgets.${GROUP}` });
    const statusSchema = stored.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.status;
    expect(statusSchema?.x_kubernetes_preserve_unknown_fields).toBe(true);

    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    const coords = { group: GROUP, version: "v1", namespace: "harness", plural: "widgets" };
    // Discovery of a just-established CRD can lag a moment behind its condition.
    await waitUntil("widgets to be served", 30_000, async () => {
      try {
        await custom.listNamespacedCustomObject(coords);
        return true;
      } catch {
        return false;
      }
    });
    await custom.createNamespacedCustomObject({
      ...coords,
      body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } },
    });
    const got = (await custom.getNamespacedCustomObject({ ...coords, name: "w1" })) as {
      spec: { size: number };
    };
    expect(got.spec.size).toBe(3);
    // The structural schema is enforced by the server.
    await expect(
      custom.createNamespacedCustomObject({
        ...coords,
        body: { apiVersion: `${GROUP}/v1`, kind: "Widget", metadata: { name: "w2" }, spec: { size: 0 } },
      }),
    ).rejects.toMatchObject({ code: 422 });
  });
});
