// What a resource served by dbhooks is: the HTTP layer, the render command and the manifests test only
// know this shape, so adding a resource is a new folder plus one line in registry.ts.
import type { ChildKind } from "../metacontroller/observed.js";
import type { HookContext, HookRequest, HookResponse } from "../metacontroller/types.js";
import type { Crd } from "../schema/crd.js";

export type Hook = (request: HookRequest, context: HookContext) => HookResponse;

export interface Resource {
  /** Path segment of its routes: /<name>/sync, /<name>/finalize. */
  readonly name: string;
  readonly crd: Crd;
  /** Every kind its hooks can emit, with the plural the CompositeController's childResources use. */
  readonly childKinds: readonly (ChildKind & { readonly resource: string })[];
  readonly sync: Hook;
  readonly finalize?: Hook;
}
