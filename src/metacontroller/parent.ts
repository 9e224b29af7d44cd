// The identity of a hook's parent, readable even when its spec is not.
import type { ParentObject } from "./types.js";

export interface ParentIdentity {
  readonly name: string;
  /** "default" when the parent carries none (a hand-written request). */
  readonly namespace: string;
  readonly uid: string;
  readonly generation: number;
  /** Set once the parent is being deleted. */
  readonly deletionTimestamp: string | undefined;
}

export function parentIdentity(parent: ParentObject): ParentIdentity {
  const metadata = parent.metadata ?? {};
  return {
    name: String(metadata.name ?? ""),
    namespace:
      typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : "default",
    uid: typeof metadata.uid === "string" ? metadata.uid : "",
    generation: typeof metadata.generation === "number" ? metadata.generation : 0,
    deletionTimestamp:
      typeof metadata.deletionTimestamp === "string" ? metadata.deletionTimestamp : undefined,
  };
}
