// What a resource served by dbhooks is: the HTTP layer, the render command and the manifests test only
// know this shape, so adding a resource is a new folder plus one line in registry.ts.
import type { ChildKind } from "../metacontroller/observed.js";
import type { HookContext, HookRequest, HookResponse, ParentObject } from "../metacontroller/types.js";
import type { Crd } from "../schema/crd.js";

export type Hook = (request: HookRequest, context: HookContext) => HookResponse;

/** An admission decision: a refusal says why, naming the field; warnings reach the user through kubectl. */
export interface Decision {
  readonly allowed: boolean;
  readonly message?: string;
  readonly warnings: readonly string[];
}

export type JsonPatchOperation =
  | { op: "add" | "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

/** Pure admission rules, served by the validating and mutating webhooks (AdmissionReview v1). */
export interface Admission {
  validate(object: ParentObject, oldObject: ParentObject | undefined): Decision;
  mutate(object: ParentObject): JsonPatchOperation[];
}

export interface Resource {
  /** Path segment of its routes: /<name>/sync, /<name>/finalize. */
  readonly name: string;
  readonly crd: Crd;
  /** Every kind its hooks can emit, with the plural the CompositeController's childResources use. */
  readonly childKinds: readonly (ChildKind & { readonly resource: string })[];
  readonly sync: Hook;
  readonly finalize?: Hook;
  readonly admission?: Admission;
  /** Converts between served versions (ConversionReview v1); throws an Error that says why it cannot. */
  readonly convert?: (object: ParentObject, desiredAPIVersion: string) => ParentObject;
}
