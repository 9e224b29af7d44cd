// A small JSON client for the real API server: @kubernetes/client-node's KubeConfig supplies the server,
// TLS and credentials; requests are plain REST so that objects go over the wire exactly as written
// (client-node's typed serializers rename or drop fields such as x-kubernetes-list-type).
import { request as httpsRequest, type RequestOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

export type Json = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects read loosely in tests
export type Obj = Record<string, any>;

export class KubeError extends Error {
  constructor(
    readonly status: number,
    readonly body: Obj,
    what: string,
  ) {
    super(`${what}: HTTP ${status}: ${String(body.message ?? JSON.stringify(body))}`);
  }
}

interface ResourceInfo {
  readonly name: string;
  readonly namespaced: boolean;
}

/** `299 - "text"` Warning headers (RFC 7234), as the API server sends admission warnings, to their text. */
function warnings(header: string | string[] | undefined): string[] {
  const values = Array.isArray(header) ? header : header ? [header] : [];
  return values.flatMap((v) => v.split(/,(?=\s*299 )/)).map((w) => w.trim().replace(/^299 - "(.*)"$/s, "$1"));
}

export class Kube {
  readonly #config: KubeConfig;
  readonly #discovery = new Map<string, Promise<Obj[]>>();
  /** API requests sent, for the per-sync request count the lifecycle test reports. */
  requests = 0;
  /** Of which writes (anything but GET). */
  writes = 0;
  /** The Warning headers of the last response (admission webhooks' warnings arrive this way). */
  lastWarnings: string[] = [];

  constructor(config: KubeConfig) {
    this.#config = config;
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<Obj> {
    const server = this.#config.getCurrentCluster()?.server;
    if (!server) throw new Error("kubeconfig has no current cluster");
    const url = new URL(path, server);
    const options: RequestOptions = { method, headers: { Accept: "application/json" } };
    await this.#config.applyToHTTPSOptions(options);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload)
      Object.assign(options.headers as Json, {
        "Content-Type": contentType,
        "Content-Length": payload.length,
      });
    this.requests++;
    if (method !== "GET") this.writes++;
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpsRequest(url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          this.lastWarnings = warnings(res.headers.warning);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
    const parsed: Obj = text ? JSON.parse(text) : {};
    if (status < 200 || status > 299) throw new KubeError(status, parsed, `${method} ${path}`);
    return parsed;
  }

  /** The resources of apiVersion (not subresources), from its discovery document, fetched once. */
  #resources(apiVersion: string): Promise<Obj[]> {
    let discovery = this.#discovery.get(apiVersion);
    if (!discovery) {
      const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
      discovery = this.request("GET", path).then((doc) =>
        (doc.resources as Obj[]).filter((r) => !r.name.includes("/")),
      );
      discovery.catch(() => this.#discovery.delete(apiVersion));
      this.#discovery.set(apiVersion, discovery);
    }
    return discovery;
  }

  /** Kind -> plural and scope. */
  async resource(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const found = (await this.#resources(apiVersion)).find((r) => r.kind === kind);
    if (!found) throw new Error(`the API server serves no ${kind} in ${apiVersion}`);
    return { name: found.name, namespaced: found.namespaced };
  }

  /** Plural -> kind (what a CompositeController's childResources name). */
  async kindOf(apiVersion: string, resource: string): Promise<string> {
    const found = (await this.#resources(apiVersion)).find((r) => r.name === resource);
    if (!found) throw new Error(`the API server serves no ${resource} in ${apiVersion}`);
    return found.kind;
  }

  /** Creates the CRDs and waits until each is Established and served; the live CRDs, in order. */
  async establish(crds: readonly Obj[]): Promise<Obj[]> {
    for (const crd of crds) await this.create(crd);
    const live: Obj[] = [];
    for (const crd of crds) {
      const { group, versions, names } = crd.spec;
      const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`;
      live.push(
        await waitFor(`CRD ${crd.metadata.name} Established and served`, async () => {
          const current = await this.request("GET", path);
          const established = (current.status?.conditions ?? []).some(
            (c: Obj) => c.type === "Established" && c.status === "True",
          );
          // Established comes a moment before the resource is served.
          const served =
            established &&
            (await this.request("GET", `/apis/${group}/${versions[0].name}/${names.plural}`).catch(
              () => undefined,
            ));
          return served ? current : undefined;
        }),
      );
    }
    this.#discovery.clear();
    return live;
  }

  async collectionPath(apiVersion: string, kind: string, namespace?: string): Promise<string> {
    const { name, namespaced } = await this.resource(apiVersion, kind);
    const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return namespaced ? `${base}/namespaces/${namespace ?? "default"}/${name}` : `${base}/${name}`;
  }

  async objectPath(object: Obj): Promise<string> {
    const collection = await this.collectionPath(object.apiVersion, object.kind, object.metadata?.namespace);
    return `${collection}/${object.metadata.name}`;
  }

  async create(object: Obj, options: { dryRun?: boolean } = {}): Promise<Obj> {
    const path = await this.collectionPath(object.apiVersion, object.kind, object.metadata?.namespace);
    return this.request("POST", `${path}${options.dryRun ? "?dryRun=All" : ""}`, object);
  }

  async get(object: Obj): Promise<Obj | undefined> {
    try {
      return await this.request("GET", await this.objectPath(object));
    } catch (error) {
      if (error instanceof KubeError && error.status === 404) return undefined;
      throw error;
    }
  }

  async replace(object: Obj): Promise<Obj> {
    return this.request("PUT", await this.objectPath(object), object);
  }

  async replaceStatus(object: Obj): Promise<Obj> {
    return this.request("PUT", `${await this.objectPath(object)}/status`, object);
  }

  async mergePatch(object: Obj, patch: Obj, subresource = ""): Promise<Obj> {
    return this.request(
      "PATCH",
      `${await this.objectPath(object)}${subresource}`,
      patch,
      "application/merge-patch+json",
    );
  }

  async delete(object: Obj): Promise<void> {
    try {
      await this.request("DELETE", await this.objectPath(object), {
        kind: "DeleteOptions",
        apiVersion: "v1",
        propagationPolicy: "Background",
      });
    } catch (error) {
      if (!(error instanceof KubeError && error.status === 404)) throw error;
    }
  }

  /** Items of a list, with the apiVersion and kind that list responses leave out. */
  async list(apiVersion: string, kind: string, namespace: string, labelSelector?: string): Promise<Obj[]> {
    const path = await this.collectionPath(apiVersion, kind, namespace);
    const query = labelSelector ? `?labelSelector=${encodeURIComponent(labelSelector)}` : "";
    const list = await this.request("GET", `${path}${query}`);
    return (list.items as Obj[]).map((item) => ({ apiVersion, kind, ...item }));
  }

  async createNamespace(name: string): Promise<void> {
    await this.request("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name },
    });
  }
}

export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
