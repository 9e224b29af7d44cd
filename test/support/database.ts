// Builders for Database hook requests in targeted tests.
import type { ChildrenMap, HookRequest, KubeObject, ParentObject } from "../../src/metacontroller/types.js";
import { LAST_APPLIED_ANNOTATION } from "../../src/metacontroller/types.js";
import { databaseResource } from "../../src/resources/database/index.js";
import { FIXTURE_CONTEXT } from "./fixtures.js";

// biome-ignore lint/suspicious/noExplicitAny: tests read deep, loosely typed fields of Kubernetes objects
export type Loose = Record<string, any>;

export const database = databaseResource();
export const context = FIXTURE_CONTEXT;

export function parent(spec: unknown, extra: Partial<ParentObject> = {}): ParentObject {
  return {
    apiVersion: "dbhooks.io/v1alpha1",
    kind: "Database",
    ...extra,
    metadata: {
      name: "orders",
      namespace: "shop",
      uid: "7d0c6f7a-0000-4000-8000-000000000001",
      generation: 1,
      ...extra.metadata,
    },
    spec,
  };
}

export const POSTGRES = { engine: "postgresql", version: "16", storage: { size: "10Gi" } } as const;

/** Children as Metacontroller would observe them after creating `desired`: keyed by name (v1). */
export function observedAs(
  desired: readonly KubeObject[],
  mutate: (o: KubeObject & Record<string, unknown>) => void = () => {},
): ChildrenMap {
  const map: ChildrenMap = {};
  for (const child of desired) {
    const o = structuredClone(child) as KubeObject & Record<string, unknown>;
    o.metadata = {
      ...o.metadata,
      uid: `uid-${o.kind}-${o.metadata?.name}`,
      resourceVersion: "42",
      annotations: { ...o.metadata?.annotations, [LAST_APPLIED_ANNOTATION]: JSON.stringify(child) },
    } as KubeObject["metadata"];
    mutate(o);
    const key = `${o.kind}.${o.apiVersion}`;
    map[key] = { ...map[key], [String(o.metadata?.name)]: o };
  }
  return map;
}

export function sync(request: HookRequest, now = context.now) {
  return database.sync(request, { ...context, now });
}

export function childOf(
  children: readonly KubeObject[],
  kind: string,
  name?: string,
): KubeObject & Record<string, unknown> {
  const found = children.find((c) => c.kind === kind && (name === undefined || c.metadata?.name === name));
  if (!found)
    throw new Error(
      `no ${kind} ${name ?? ""} among ${children.map((c) => `${c.kind}/${c.metadata?.name}`).join(", ")}`,
    );
  return found as KubeObject & Record<string, unknown>;
}

/** A StatefulSet status as the controller writes it when every replica is ready and rolled out. */
export function rolledOut(o: KubeObject & Record<string, unknown>, ready?: number): void {
  if (o.kind !== "StatefulSet") return;
  const replicas = (o.spec as { replicas: number }).replicas;
  o.status = {
    observedGeneration: 1,
    replicas,
    readyReplicas: ready ?? replicas,
    updatedReplicas: replicas,
    currentRevision: "r1",
    updateRevision: "r1",
  };
}
