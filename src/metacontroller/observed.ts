// Observed children, whatever the key style: hook version v1 keys them by name, v2 by namespace/name.
// Everything here reads metadata.name and never depends on the inner key.
import { type ChildrenMap, childKey, type KubeObject, LAST_APPLIED_ANNOTATION } from "./types.js";

export interface ChildKind {
  readonly kind: string;
  readonly apiVersion: string;
}

export class Observed {
  readonly #children: ChildrenMap;

  constructor(children: ChildrenMap) {
    this.#children = children;
  }

  /** `<Kind>.<apiVersion>` -> name -> child, built on first use: a sync looks up a dozen children. */
  #byName: Map<string, Map<string, KubeObject>> | undefined;

  /** The observed child of this kind and name, if any. */
  get<T extends object = KubeObject>(type: ChildKind, name: string): T | undefined {
    this.#byName ??= this.#index();
    return this.#byName.get(childKey(type.kind, type.apiVersion))?.get(name) as T | undefined;
  }

  #index(): Map<string, Map<string, KubeObject>> {
    const index = new Map<string, Map<string, KubeObject>>();
    for (const [key, group] of Object.entries(this.#children)) {
      if (isRecord(group)) index.set(key, byName(Object.values(group)));
    }
    return index;
  }

  /** Every observed child of every kind, in a stable order (by key, then by name). */
  all(): KubeObject[] {
    const out: KubeObject[] = [];
    for (const key of Object.keys(this.#children).sort()) {
      const group = this.#children[key];
      if (!isRecord(group)) continue;
      const objects = Object.values(group).filter(
        (c): c is KubeObject => isRecord(c) && isRecord(c.metadata) && typeof c.metadata.name === "string",
      );
      objects.sort((a, b) => compare(String(a.metadata?.name), String(b.metadata?.name)));
      out.push(...objects.map((o) => withKindFromKey(o, key)));
    }
    return out;
  }
}

/** Children by metadata.name; the first of two with one name wins, as a linear search would find it. */
function byName(children: unknown[]): Map<string, KubeObject> {
  const out = new Map<string, KubeObject>();
  for (const child of children) {
    const name = isRecord(child) && isRecord(child.metadata) ? child.metadata.name : undefined;
    if (typeof name === "string" && !out.has(name)) out.set(name, child as KubeObject);
  }
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Metacontroller's cache always fills apiVersion/kind, but a hand-written request may not. */
function withKindFromKey(object: KubeObject, key: string): KubeObject {
  if (object.apiVersion && object.kind) return object;
  const dot = key.indexOf(".");
  return { ...object, kind: key.slice(0, dot), apiVersion: key.slice(dot + 1) };
}

const SERVER_SET_METADATA = [
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
  "ownerReferences",
];

/**
 * An observed child turned back into a desired one that changes nothing: what Metacontroller last applied
 * (so its three-way merge is a no-op), or else the object minus the fields only the server sets.
 */
export function asUnchanged(object: KubeObject): KubeObject {
  const lastApplied = object.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (lastApplied) {
    try {
      const parsed: unknown = JSON.parse(lastApplied);
      if (isRecord(parsed) && isRecord(parsed.metadata) && parsed.metadata.name === object.metadata?.name) {
        return { apiVersion: object.apiVersion, kind: object.kind, ...parsed } as KubeObject;
      }
    } catch {
      // A corrupt annotation: fall through to the observed object itself.
    }
  }
  const { status: _status, ...rest } = object as KubeObject & { status?: unknown };
  const metadata: Record<string, unknown> = { ...object.metadata };
  for (const field of SERVER_SET_METADATA) delete metadata[field];
  if (isRecord(metadata.annotations)) {
    const { [LAST_APPLIED_ANNOTATION]: _dropped, ...annotations } = metadata.annotations as Record<
      string,
      string
    >;
    metadata.annotations = annotations;
  }
  return { ...rest, metadata } as KubeObject;
}
