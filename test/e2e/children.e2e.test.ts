// 3. Every child the hooks emit, for every fixture under hooks/, is created for real by a kube-apiserver.
// An object it refuses is a bug in src/, not in this test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadResources } from "../../src/resources/registry.js";
import { fixtures } from "../support/fixtures.js";
import { type ControlPlane, startControlPlane } from "./harness/control-plane.js";
import { Kube, type Obj } from "./support/kube.js";

let cp: ControlPlane;
let kube: Kube;

beforeAll(async () => {
  cp = await startControlPlane();
  kube = new Kube(cp.kubeConfig);
});
afterAll(async () => {
  await cp?.stop();
});

const cases = fixtures().filter((f) => f.responseText !== undefined);

describe("every fixture's children are accepted by the API server", () => {
  it("covers every kind the hooks emit", () => {
    const kinds = new Set(
      cases.flatMap((f) => (JSON.parse(f.responseText ?? "{}").children as Obj[]).map((c) => c.kind)),
    );
    const emitted = new Set(loadResources().flatMap((r) => r.childKinds.map((k) => k.kind)));
    expect([...kinds].sort()).toEqual([...emitted].sort());
  });

  it.each(cases.map((f, i) => [`${f.resource}/${f.name}`, f, i] as const))(
    "%s",
    async (_name, fixture, index) => {
      const namespace = `fixture-${index}`;
      await kube.createNamespace(namespace);
      const children = JSON.parse(fixture.responseText ?? "{}").children as Obj[];
      for (const child of children) {
        const object = { ...child, metadata: { ...child.metadata, namespace } };
        const created = await kube.create(object);
        expect(created.metadata.name).toBe(child.metadata.name);
        // What we sent is what is stored: nothing pruned, except fields the server fills in.
        if (child.spec && child.kind !== "Service") expect(created.spec).toMatchObject(child.spec);
        if (child.data) expect(created.data).toEqual(child.data);
      }
    },
  );
});
