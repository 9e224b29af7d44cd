// A driver that does what Metacontroller's CompositeController does for one parent (see
// ../shared/docs/metacontroller.md): read the parent and the children it controls, POST the hook request,
// create/update/delete children with a controller ownerReference and the last-applied annotation, write the
// returned status through /status, and remove the finalizer once the finalize hook says finalized.
import { isDeepStrictEqual } from "node:util";
import { type Kube, KubeError, type Obj } from "./kube.js";
import { mergeValue } from "./merge.js";

export const LAST_APPLIED = "metacontroller.k8s.io/last-applied-configuration";

export interface ControllerSpec {
  metadata: { name: string };
  spec: {
    parentResource: { apiVersion: string; resource: string };
    childResources: { apiVersion: string; resource: string; updateStrategy?: { method?: string } }[];
    hooks: Record<string, { webhook: { path: string } }>;
    generateSelector?: boolean;
  };
}

export interface PassResult {
  readonly hook: "sync" | "finalize";
  readonly created: string[];
  readonly updated: string[];
  readonly deleted: string[];
  readonly statusWritten: boolean;
  readonly finalized: boolean;
  readonly apiRequests: number;
  /** Creates, updates, deletes and status writes: what a watch-fed Metacontroller sends too. */
  readonly apiWrites: number;
}

const id = (o: Obj) => `${o.kind}/${o.metadata.name}`;

/** Paths where two JSON values differ, for messages about update loops. */
export function differences(a: unknown, b: unknown, path = ""): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  const objects = typeof a === "object" && a !== null && typeof b === "object" && b !== null;
  if (!objects) return [`${path || "."}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`];
  const keys = new Set([...Object.keys(a as Obj), ...Object.keys(b as Obj)]);
  return [...keys].flatMap((k) => differences((a as Obj)[k], (b as Obj)[k], `${path}.${k}`));
}

export class MiniMetacontroller {
  /** For each child updated by the last passes: what changed. */
  readonly lastChanges: Record<string, string[]> = {};
  readonly #kube: Kube;
  readonly #controller: ControllerSpec;
  readonly #hookBase: string;
  readonly #parentKind: string;

  constructor(kube: Kube, controller: ControllerSpec, options: { hookBase: string; parentKind: string }) {
    this.#kube = kube;
    this.#controller = controller;
    this.#hookBase = options.hookBase;
    this.#parentKind = options.parentKind;
  }

  get finalizer(): string {
    return `metacontroller.io/compositecontroller-${this.#controller.metadata.name}`;
  }

  async #rule(apiVersion: string, kind: string) {
    const { name } = await this.#kube.resource(apiVersion, kind);
    return this.#controller.spec.childResources.find(
      (r) => r.apiVersion === apiVersion && r.resource === name,
    );
  }

  /** Children this parent controls, keyed as Metacontroller keys them: `<Kind>.<apiVersion>` -> name. */
  async observe(parent: Obj): Promise<Record<string, Record<string, Obj>>> {
    const children: Record<string, Record<string, Obj>> = {};
    for (const rule of this.#controller.spec.childResources) {
      const kind = await this.#kube.kindOf(rule.apiVersion, rule.resource);
      const items = await this.#kube.list(
        rule.apiVersion,
        kind,
        parent.metadata.namespace,
        `controller-uid=${parent.metadata.uid}`,
      );
      const owned = items.filter((o) =>
        (o.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === parent.metadata.uid),
      );
      children[`${kind}.${rule.apiVersion}`] = Object.fromEntries(owned.map((o) => [o.metadata.name, o]));
    }
    return children;
  }

  async #callHook(hook: "sync" | "finalize", body: Obj): Promise<Obj> {
    const path = this.#controller.spec.hooks[hook]?.webhook.path;
    if (!path) throw new Error(`the controller has no ${hook} hook`);
    const response = await fetch(`${this.#hookBase}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    // Metacontroller: anything but 200 is a SyncError; nothing is changed.
    if (response.status !== 200)
      throw new Error(`SyncError: ${hook} hook answered ${response.status}: ${text}`);
    return JSON.parse(text);
  }

  #asChild(parent: Obj, desired: Obj): Obj {
    const child = structuredClone(desired);
    child.metadata.namespace ??= parent.metadata.namespace;
    child.metadata.labels = { ...child.metadata.labels, "controller-uid": parent.metadata.uid };
    child.metadata.annotations = { ...child.metadata.annotations, [LAST_APPLIED]: JSON.stringify(desired) };
    child.metadata.ownerReferences = [
      {
        apiVersion: parent.apiVersion,
        kind: parent.kind,
        name: parent.metadata.name,
        uid: parent.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    return child;
  }

  async #getParent(parentPath: string): Promise<Obj | undefined> {
    try {
      return await this.#kube.request("GET", parentPath);
    } catch (error) {
      if (error instanceof KubeError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** Metacontroller adds its finalizer to every live parent of a controller with a finalize hook. */
  async #ensureFinalizer(parentPath: string, parent: Obj): Promise<Obj> {
    const finalizers: string[] = parent.metadata.finalizers ?? [];
    if (
      parent.metadata.deletionTimestamp ||
      !this.#controller.spec.hooks.finalize ||
      finalizers.includes(this.finalizer)
    ) {
      return parent;
    }
    return this.#kube.request("PUT", parentPath, {
      ...parent,
      metadata: { ...parent.metadata, finalizers: [...finalizers, this.finalizer] },
    });
  }

  /** One reconcile pass for the parent; undefined when the parent is gone. */
  async reconcile(namespace: string, name: string): Promise<PassResult | undefined> {
    const before = { requests: this.#kube.requests, writes: this.#kube.writes };
    const { apiVersion, resource } = this.#controller.spec.parentResource;
    const parentPath = `/apis/${apiVersion}/namespaces/${namespace}/${resource}/${name}`;
    const found = await this.#getParent(parentPath);
    if (!found) return undefined;
    const parent = await this.#ensureFinalizer(parentPath, found);
    const hook =
      parent.metadata.deletionTimestamp && this.#controller.spec.hooks.finalize ? "finalize" : "sync";
    const children = await this.observe(parent);
    const answer = await this.#callHook(hook, {
      controller: this.#controller,
      parent,
      children,
      related: {},
      finalizing: hook === "finalize",
    });
    const result = await this.#applyChildren(parent, children, answer.children ?? []);
    const statusWritten = await this.#writeStatus(parentPath, parent, answer.status);
    const finalized = hook === "finalize" && answer.finalized === true;
    if (finalized) await this.#removeFinalizer(parentPath);
    return {
      hook,
      ...result,
      statusWritten,
      finalized,
      apiRequests: this.#kube.requests - before.requests,
      apiWrites: this.#kube.writes - before.writes,
    };
  }

  /** Creates or updates one desired child as its rule's update strategy says; what happened, if anything. */
  async #applyChild(
    parent: Obj,
    existing: Obj | undefined,
    desired: Obj,
  ): Promise<"created" | "updated" | undefined> {
    const rule = await this.#rule(desired.apiVersion, desired.kind);
    if (!rule) throw new Error(`the hook asked for ${id(desired)}, a kind with no childResources rule`);
    const child = this.#asChild(parent, desired);
    if (!existing) {
      await this.#kube.create(child);
      return "created";
    }
    if ((rule.updateStrategy?.method ?? "OnDelete") === "OnDelete") return undefined;
    const lastApplied = existing.metadata.annotations?.[LAST_APPLIED];
    const merged = mergeValue(existing, lastApplied ? JSON.parse(lastApplied) : undefined, child);
    const { status: _s, ...mergedSpec } = merged;
    const { status: _o, ...existingSpec } = existing;
    if (isDeepStrictEqual(mergedSpec, existingSpec)) return undefined;
    await this.#kube.replace(merged);
    this.lastChanges[id(desired)] = differences(existingSpec, mergedSpec);
    return "updated";
  }

  async #applyChildren(parent: Obj, observed: Record<string, Record<string, Obj>>, desiredList: Obj[]) {
    const result = { created: [] as string[], updated: [] as string[], deleted: [] as string[] };
    const wanted = new Set<string>();
    for (const desired of desiredList) {
      const key = `${desired.kind}.${desired.apiVersion}`;
      wanted.add(`${key}/${desired.metadata.name}`);
      const done = await this.#applyChild(parent, observed[key]?.[desired.metadata.name], desired);
      if (done) result[done].push(id(desired));
    }
    const unwanted = Object.entries(observed).flatMap(([key, group]) =>
      Object.values(group).filter(
        (c) => !wanted.has(`${key}/${c.metadata.name}`) && !c.metadata.deletionTimestamp,
      ),
    );
    for (const child of unwanted) {
      await this.#kube.delete(child);
      result.deleted.push(id(child));
    }
    return result;
  }

  async #writeStatus(parentPath: string, parent: Obj, status: Obj | undefined): Promise<boolean> {
    // Metacontroller writes the whole status and sets observedGeneration itself.
    const next = { ...(status ?? {}), observedGeneration: parent.metadata.generation };
    if (isDeepStrictEqual(next, parent.status ?? {})) return false;
    const fresh = await this.#kube.request("GET", parentPath);
    await this.#kube.request("PUT", `${parentPath}/status`, { ...fresh, status: next });
    return true;
  }

  async #removeFinalizer(parentPath: string): Promise<void> {
    const fresh = await this.#kube.request("GET", parentPath);
    const finalizers = (fresh.metadata.finalizers ?? []).filter((f: string) => f !== this.finalizer);
    await this.#kube.request("PUT", parentPath, { ...fresh, metadata: { ...fresh.metadata, finalizers } });
  }

  /** Reconcile until a pass changes nothing (or the parent is gone). */
  async settle(namespace: string, name: string, maxPasses = 8): Promise<PassResult[]> {
    const passes: PassResult[] = [];
    for (let i = 0; i < maxPasses; i++) {
      const pass = await this.reconcile(namespace, name);
      if (!pass) return passes;
      passes.push(pass);
      const quiet =
        pass.created.length + pass.updated.length + pass.deleted.length === 0 && !pass.statusWritten;
      if (quiet || pass.finalized) return passes;
    }
    throw new Error(
      `${this.#parentKind} ${namespace}/${name} did not settle in ${maxPasses} passes: last ${JSON.stringify(passes.at(-1))}, changes ${JSON.stringify(this.lastChanges)}`,
    );
  }
}
