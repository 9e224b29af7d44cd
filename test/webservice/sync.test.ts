import { describe, expect, it } from "vitest";
import { asUnchanged, Observed } from "../../src/metacontroller/observed.js";
import type { KubeObject } from "../../src/metacontroller/types.js";
import { loadWebServiceSchema } from "../../src/resources/webservice/index.js";
import { type Loose, observedAs } from "../support/database.js";
import { fixtures } from "../support/fixtures.js";
import {
  answerFor,
  containerOf,
  context,
  HOST,
  kindOf,
  MINIMAL,
  parent,
  sync,
  webService,
} from "../support/webservice.js";

const names = (children: readonly KubeObject[]) => children.map((c) => `${c.kind}/${c.metadata?.name}`);
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const FULL = {
  ...MINIMAL,
  port: 3000,
  env: [{ name: "LOG_LEVEL", value: "info" }],
  databaseRef: { name: "orders" },
  ingress: { enabled: true, host: HOST },
};

/** A Deployment status as its controller writes it. */
function deploymentStatus(fields: Loose = {}) {
  return (o: Loose) => {
    if (o.kind !== "Deployment") return;
    o.metadata.generation = fields.generation ?? 1;
    o.status = {
      observedGeneration: fields.observedGeneration ?? fields.generation ?? 1,
      replicas: 3,
      availableReplicas: fields.availableReplicas ?? 3,
      conditions: fields.conditions ?? [
        { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "ok" },
        { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: "done" },
      ],
    };
  };
}

describe("database credentials", () => {
  it("injects DATABASE_* from the Database's Secret first, by reference, then spec.env in order", () => {
    const env = containerOf(
      answerFor({
        ...FULL,
        env: [
          { name: "B", value: "2" },
          { name: "A", value: "1" },
        ],
      }).children,
    ).env;
    expect(env).toEqual([
      ...[
        ["DATABASE_URL", "uri"],
        ["DATABASE_HOST", "host"],
        ["DATABASE_PORT", "port"],
        ["DATABASE_USER", "username"],
        ["DATABASE_PASSWORD", "password"],
      ].map(([name, key]) => ({ name, valueFrom: { secretKeyRef: { name: "orders-db-credentials", key } } })),
      { name: "B", value: "2" },
      { name: "A", value: "1" },
    ]);
  });

  it("never carries a literal value for an injected variable", () => {
    const env = containerOf(answerFor(FULL).children).env as Loose[];
    for (const entry of env.filter((e) => e.name.startsWith("DATABASE_")))
      expect(entry.value).toBeUndefined();
  });

  it("has no env at all without a databaseRef or spec.env, and leaves out empty values", () => {
    expect(containerOf(answerFor(MINIMAL).children).env).toBeUndefined();
    const env = containerOf(
      answerFor({ ...MINIMAL, env: [{ name: "EMPTY", value: "" }, { name: "NONE" }] }).children,
    ).env;
    expect(env).toEqual([{ name: "EMPTY" }, { name: "NONE" }]);
  });

  it("never answers two variables with one name, whatever the spec", () => {
    const specs = [
      FULL,
      { ...FULL, env: [{ name: "DATABASE_URL", value: "x" }] },
      { ...MINIMAL, env: [{ name: "A" }, { name: "A" }] },
      { ...MINIMAL, env: [{ name: "DATABASE_URL", value: "x" }] },
    ];
    for (const spec of specs) {
      const deployment = kindOf(answerFor(spec).children, "Deployment");
      const envNames = ((deployment?.spec.template.spec.containers[0].env ?? []) as Loose[]).map(
        (e) => e.name,
      );
      expect(new Set(envNames).size).toBe(envNames.length);
    }
  });
});

describe("children", () => {
  it("are a Deployment and a Service named after the WebService, plus an Ingress when enabled", () => {
    expect(names(answerFor(MINIMAL).children)).toEqual(["Deployment/storefront", "Service/storefront"]);
    const all = answerFor(FULL).children;
    expect(names(all)).toEqual(["Deployment/storefront", "Service/storefront", "Ingress/storefront"]);
    for (const child of all) {
      expect(child.metadata.namespace).toBe("shop");
      expect(child.metadata.labels).toEqual({
        "app.kubernetes.io/name": "storefront",
        "app.kubernetes.io/instance": "storefront",
        "app.kubernetes.io/component": "web",
        "app.kubernetes.io/managed-by": "dbhooks",
      });
    }
  });

  it("select the Deployment's pods with the Deployment and the Service, and route the Ingress to them", () => {
    const children = answerFor(FULL).children;
    const deployment = kindOf(children, "Deployment") as Loose;
    const service = kindOf(children, "Service") as Loose;
    const ingress = kindOf(children, "Ingress") as Loose;
    const podLabels = deployment.spec.template.metadata.labels;
    expect(matches(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    const containerPort = deployment.spec.template.spec.containers[0].ports[0];
    expect(containerPort).toEqual({ name: "http", containerPort: 3000, protocol: "TCP" });
    expect(service.spec.ports).toEqual([{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }]);
    const backend = ingress.spec.rules[0].http.paths[0];
    expect(backend).toEqual({
      path: "/",
      pathType: "Prefix",
      backend: { service: { name: service.metadata.name, port: { name: "http" } } },
    });
  });

  it("run the pods restricted, probed on the port, rolling without losing a ready pod", () => {
    const deployment = kindOf(answerFor(FULL).children, "Deployment") as Loose;
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    expect(pod.automountServiceAccountToken).toBe(false);
    const container = pod.containers[0];
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"])
      expect(container[probe].tcpSocket).toEqual({ port: "http" });
    expect(deployment.spec.strategy).toEqual({
      type: "RollingUpdate",
      rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" },
    });
  });

  it("set only the resources the spec gives", () => {
    expect(containerOf(answerFor(MINIMAL).children).resources).toBeUndefined();
    const resources = { requests: { memory: "128Mi" }, limits: { cpu: "1", memory: "256Mi" } };
    expect(containerOf(answerFor({ ...MINIMAL, resources }).children).resources).toEqual(resources);
  });

  it("name the TLS Secret after the host, and have no TLS when it is off", () => {
    const tls = kindOf(answerFor(FULL).children, "Ingress") as Loose;
    expect(tls.spec.tls).toEqual([{ hosts: [HOST], secretName: "shop-example-com-tls" }]);
    const plain = kindOf(
      answerFor({ ...FULL, ingress: { ...FULL.ingress, tls: false } }).children,
      "Ingress",
    );
    expect(plain?.spec.tls).toBeUndefined();
  });

  it("put the spec's annotations and class on the Ingress, keys sorted", () => {
    const ingress = kindOf(
      answerFor({
        ...FULL,
        ingress: { ...FULL.ingress, className: "nginx", annotations: { "z.io/b": "2", "a.io/a": "1" } },
      }).children,
      "Ingress",
    ) as Loose;
    expect(Object.keys(ingress.metadata.annotations)).toEqual(["a.io/a", "z.io/b"]);
    expect(ingress.spec.ingressClassName).toBe("nginx");
    expect(kindOf(answerFor(FULL).children, "Ingress")?.metadata.annotations).toBeUndefined();
  });
});

describe("status", () => {
  const desired = answerFor(FULL).children;

  it("before anything exists: not available, progressing, no url; the pods' selector for scaling", () => {
    const { status } = answerFor(FULL);
    expect(status).toEqual({
      availableReplicas: 0,
      selector:
        "app.kubernetes.io/component=web,app.kubernetes.io/instance=storefront,app.kubernetes.io/name=storefront",
      conditions: [
        expect.objectContaining({ type: "Available", status: "False", reason: "Creating" }),
        expect.objectContaining({ type: "Progressing", status: "True", reason: "Creating" }),
      ],
      observedGeneration: 1,
    });
  });

  it("mirrors the observed Deployment's conditions and availableReplicas", () => {
    const conditions = [
      { type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: "timed out" },
      { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: "not enough" },
    ];
    const { status } = answerFor(
      FULL,
      observedAs(desired, deploymentStatus({ availableReplicas: 1, conditions })),
    );
    expect(status.availableReplicas).toBe(1);
    expect(status.conditions).toEqual([
      expect.objectContaining({
        type: "Available",
        status: "False",
        reason: "MinimumReplicasUnavailable",
        message: "not enough",
      }),
      expect.objectContaining({
        type: "Progressing",
        status: "False",
        reason: "ProgressDeadlineExceeded",
        message: "timed out",
      }),
    ]);
  });

  it("says Unknown while the Deployment has no condition, and Progressing until it saw the latest spec", () => {
    const none = answerFor(FULL, observedAs(desired, deploymentStatus({ conditions: [] }))).status;
    expect(none.conditions.map((c: Loose) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      "Available=Unknown/NoDeploymentStatus",
      "Progressing=Unknown/NoDeploymentStatus",
    ]);
    const stale = answerFor(
      FULL,
      observedAs(desired, deploymentStatus({ generation: 4, observedGeneration: 3 })),
    ).status;
    expect(stale.conditions.map((c: Loose) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      "Available=True/MinimumReplicasAvailable",
      "Progressing=True/RolloutPending",
    ]);
  });

  it("gives the url of the observed Ingress (https with TLS), else of the observed Service", () => {
    const url = (spec: Loose, keep: (c: KubeObject) => boolean = () => true) => {
      const children = answerFor(spec).children.filter(keep);
      return answerFor(spec, observedAs(children)).status.url;
    };
    expect(url(FULL)).toBe("https://shop.example.com");
    expect(url({ ...FULL, ingress: { ...FULL.ingress, tls: false } })).toBe("http://shop.example.com");
    expect(url(MINIMAL)).toBe("http://storefront.shop.svc.cluster.local");
    expect(url(FULL, (c) => c.kind === "Deployment")).toBeUndefined();
  });

  it("moves a condition's lastTransitionTime only when its status changes, with the hook's clock", () => {
    const observed = observedAs(desired, deploymentStatus());
    const first = answerFor(FULL, observed).status;
    const later = new Date("2026-03-01T13:00:00Z");
    const same = sync({ parent: parent(FULL, { status: first }), children: observed }, later).status as Loose;
    expect(same.conditions).toEqual(first.conditions);
    const degraded = observedAs(
      desired,
      deploymentStatus({
        conditions: [
          { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: "" },
          { type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: "" },
        ],
      }),
    );
    const next = sync({ parent: parent(FULL, { status: first }), children: degraded }, later).status as Loose;
    expect(next.conditions[0].lastTransitionTime).toBe("2026-03-01T13:00:00Z");
    expect(next.conditions[1]).toMatchObject({
      reason: "ReplicaSetUpdated",
      lastTransitionTime: first.conditions[1].lastTransitionTime,
    });
  });

  it("is valid against the CRD's status schema for every fixture", () => {
    const schema = loadWebServiceSchema();
    for (const fixture of fixtures().filter((f) => f.resource === "webservice"))
      expect(schema.validateStatus(webService.sync(fixture.request, context).status), fixture.name).toEqual(
        [],
      );
  });
});

describe("bad input never costs data", () => {
  const running = answerFor(FULL).children;
  const observed = observedAs(running, deploymentStatus());

  it.each([
    ["0 replicas", { ...FULL, replicas: 0 }, "spec.replicas"],
    ["no image", { ...FULL, image: undefined }, "spec.image"],
    ["an Ingress without a host", { ...FULL, ingress: { enabled: true } }, "spec.ingress.host"],
    [
      "a variable databaseRef sets",
      { ...FULL, env: [{ name: "DATABASE_USER", value: "root" }] },
      "spec.env[0].name",
    ],
    ["a spec that is not an object", "nginx", "spec"],
  ])(
    "%s: Available and Progressing False with InvalidSpec naming %s, every child kept as last applied",
    (_case, spec, field) => {
      const answer = answerFor(spec, observed);
      for (const condition of answer.status.conditions) {
        expect(condition).toMatchObject({ status: "False", reason: "InvalidSpec" });
        expect(condition.message).toContain(field);
      }
      expect(answer.status.availableReplicas).toBe(3);
      expect(answer.children).toEqual(new Observed(observed).all().map(asUnchanged));
      expect(answer.children).toEqual(expect.arrayContaining(running));
      expect(answer.children).toHaveLength(running.length);
    },
  );

  it("keeps even an Ingress the invalid spec no longer mentions", () => {
    const answer = answerFor({ ...MINIMAL, replicas: 0 }, observed);
    expect(names(answer.children).sort()).toEqual([
      "Deployment/storefront",
      "Ingress/storefront",
      "Service/storefront",
    ]);
  });
});

describe("determinism and convergence", () => {
  it("answers byte-identically, whatever the key order of the request, and leaves the request alone", () => {
    const request = {
      parent: parent(FULL),
      children: observedAs(answerFor(FULL).children, deploymentStatus()),
    };
    const copy = structuredClone(request);
    const once = JSON.stringify(sync(request));
    const reordered = JSON.parse(JSON.stringify(request), (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(JSON.stringify(sync(request))).toBe(once);
    expect(JSON.stringify(sync(reordered))).toBe(once);
    expect(request).toEqual(copy);
  });

  it("asks for the same children once they are observed, and the same status once it is written", () => {
    for (const spec of [MINIMAL, FULL, { ...FULL, ingress: { ...FULL.ingress, tls: false } }]) {
      const first = answerFor(spec);
      const observed = observedAs(first.children, deploymentStatus());
      const second = answerFor(spec, observed);
      expect(second.children).toEqual(first.children);
      const third = answerFor(spec, observed, { status: second.status });
      expect(third.status).toEqual(second.status);
    }
  });
});
