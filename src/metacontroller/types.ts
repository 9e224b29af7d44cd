// The CompositeController hook contract (see Metacontroller's pkg/controller/composite).

/** A Kubernetes object as JSON: only the fields every object has are typed. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
}

/** A parent: its spec is whatever the user wrote until the schema says otherwise. */
export interface ParentObject extends KubeObject {
  spec?: unknown;
  status?: unknown;
}

/** `<Kind>.<apiVersion>` -> (name or namespace/name) -> object. One entry per childResources rule. */
export type ChildrenMap = Record<string, Record<string, KubeObject>>;

export interface HookRequest {
  controller?: unknown;
  parent: ParentObject;
  children: ChildrenMap;
  related?: ChildrenMap;
  finalizing?: boolean;
}

export interface HookResponse {
  status: Record<string, unknown>;
  children: KubeObject[];
  resyncAfterSeconds?: number;
  finalized?: boolean;
}

/** What every hook gets besides the request: nothing here is read from the environment by the hook. */
export interface HookContext {
  /** The current time, passed in so that the hooks stay pure and testable. */
  readonly now: Date;
  /** Key of the HMAC that derives initial credentials from the parent's uid. */
  readonly credentialsKey: Uint8Array;
  /** How long the finalize hook waits for a final backup before letting the parent go. */
  readonly finalBackupTimeoutSeconds: number;
}

/** The key Metacontroller uses for a child kind in `children`: `StatefulSet.apps/v1`, `Service.v1`. */
export function childKey(kind: string, apiVersion: string): string {
  return `${kind}.${apiVersion}`;
}

export const LAST_APPLIED_ANNOTATION = "metacontroller.k8s.io/last-applied-configuration";
