import { describe, expect, it } from "vitest";
import { loadWebServiceSchema } from "../../src/resources/webservice/index.js";
import { parseWebService } from "../../src/resources/webservice/spec.js";
import { HOST, MINIMAL, parent } from "../support/webservice.js";

const schema = loadWebServiceSchema();
const errorsOf = (spec: unknown, name?: string) => {
  const parsed = parseWebService(parent(spec, name ? { metadata: { name } } : {}), schema);
  return parsed.ok ? [] : parsed.errors;
};

describe("WebService spec", () => {
  it("takes the CRD's defaults: 3 replicas on 8080, no Ingress (TLS on once enabled)", () => {
    const parsed = parseWebService(parent(MINIMAL), schema);
    expect(parsed.ok && parsed.webService.spec).toEqual({
      image: MINIMAL.image,
      replicas: 3,
      port: 8080,
      ingress: { enabled: false, tls: true },
    });
  });

  it("does not modify the parent it reads", () => {
    const request = parent({ ...MINIMAL });
    const before = structuredClone(request);
    parseWebService(request, schema);
    expect(request).toEqual(before);
  });

  it.each([
    ["no image", {}, "spec.image: Required value"],
    ["an empty image", { image: "" }, "spec.image"],
    ["an image with a space", { image: "nginx latest" }, "spec.image"],
    ["0 replicas", { ...MINIMAL, replicas: 0 }, "spec.replicas: Invalid value: must be >= 1"],
    ["101 replicas", { ...MINIMAL, replicas: 101 }, "spec.replicas: Invalid value: must be <= 100"],
    ["port 0", { ...MINIMAL, port: 0 }, "spec.port"],
    ["cpu 0.5", { ...MINIMAL, resources: { limits: { cpu: "0.5" } } }, "spec.resources.limits.cpu"],
    [
      "memory 1GB",
      { ...MINIMAL, resources: { requests: { memory: "1GB" } } },
      "spec.resources.requests.memory",
    ],
    ["an env entry without a name", { ...MINIMAL, env: [{ value: "x" }] }, "spec.env.0.name: Required value"],
    [
      "a host with upper case",
      { ...MINIMAL, ingress: { enabled: true, host: "Shop.io" } },
      "spec.ingress.host",
    ],
    ["a wildcard host", { ...MINIMAL, ingress: { enabled: true, host: "*.shop.io" } }, "spec.ingress.host"],
    ["a databaseRef without a name", { ...MINIMAL, databaseRef: {} }, "spec.databaseRef.name"],
    ["a spec that is not an object", "nginx", "spec: Required value"],
  ])("refuses %s, naming the field", (_case, spec, message) => {
    expect(errorsOf(spec).join("\n")).toContain(message);
  });

  it.each([
    ["Storefront", "DNS-1035"],
    ["1shop", "DNS-1035"],
    [`s${"x".repeat(63)}`, "at most 63"],
  ])("refuses the name %s", (name, message) => {
    expect(errorsOf(MINIMAL, name).join()).toContain(message);
  });

  it("refuses an enabled Ingress without a host", () => {
    expect(errorsOf({ ...MINIMAL, ingress: { enabled: true } })).toEqual([
      "spec.ingress.host: Required value: an Ingress needs a host when spec.ingress.enabled is true",
    ]);
    expect(errorsOf({ ...MINIMAL, ingress: { enabled: false } })).toEqual([]);
  });

  it("refuses a duplicate variable name, and a name that databaseRef sets", () => {
    const env = [
      { name: "A", value: "1" },
      { name: "DATABASE_URL", value: "postgres://elsewhere" },
      { name: "A", value: "2" },
    ];
    expect(errorsOf({ ...MINIMAL, env, databaseRef: { name: "orders" } })).toEqual([
      'spec.env[1].name: Invalid value: "DATABASE_URL": set from the credentials of spec.databaseRef "orders"; remove it from spec.env',
      'spec.env[2].name: Duplicate value: "A"',
    ]);
    // Without a databaseRef, DATABASE_URL is the user's to set.
    expect(errorsOf({ ...MINIMAL, env })).toEqual(['spec.env[2].name: Duplicate value: "A"']);
  });

  it("refuses a request above its limit, comparing quantities, not strings", () => {
    const resources = (requests: object, limits: object) => ({ ...MINIMAL, resources: { requests, limits } });
    expect(errorsOf(resources({ cpu: "2", memory: "1Gi" }, { cpu: "1500m", memory: "1000Mi" }))).toEqual([
      'spec.resources.requests.cpu: Invalid value: "2": must be less than or equal to cpu limit of 1500m',
      'spec.resources.requests.memory: Invalid value: "1Gi": must be less than or equal to memory limit of 1000Mi',
    ]);
    expect(errorsOf(resources({ cpu: "900m", memory: "1G" }, { cpu: "1", memory: "1Gi" }))).toEqual([]);
    expect(errorsOf(resources({ cpu: "4" }, { memory: "1Gi" }))).toEqual([]);
  });

  it("refuses annotation keys the API server would refuse", () => {
    const ingress = (annotations: Record<string, string>) => ({
      ...MINIMAL,
      ingress: { enabled: true, host: HOST, annotations },
    });
    expect(errorsOf(ingress({ "cert-manager.io/cluster-issuer": "x", "a_b.c": "y" }))).toEqual([]);
    for (const key of ["bad key", "Upper.Case/x", "-x", `${"a".repeat(64)}`, "a/"])
      expect(errorsOf(ingress({ [key]: "v" })).join(), key).toContain("spec.ingress.annotations");
  });
});
