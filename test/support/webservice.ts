// Builders for WebService hook requests in targeted tests.
import type { HookRequest, KubeObject, ParentObject } from "../../src/metacontroller/types.js";
import { webServiceResource } from "../../src/resources/webservice/index.js";
import type { Loose } from "./database.js";
import { FIXTURE_CONTEXT } from "./fixtures.js";

export const webService = webServiceResource();
export const context = FIXTURE_CONTEXT;

export const MINIMAL = { image: "ghcr.io/acme/storefront:1.4.2" } as const;
export const HOST = "shop.example.com";

export function parent(spec: unknown, extra: Partial<ParentObject> = {}): ParentObject {
  return {
    apiVersion: "dbhooks.io/v1alpha1",
    kind: "WebService",
    ...extra,
    metadata: {
      name: "storefront",
      namespace: "shop",
      uid: "3b9e1c52-0000-4000-8000-000000000001",
      generation: 1,
      ...extra.metadata,
    },
    spec,
  };
}

export function sync(request: HookRequest, now = context.now) {
  return webService.sync(request, { ...context, now });
}

/** The answer's status and children, read loosely. */
export function answerFor(
  spec: unknown,
  children: HookRequest["children"] = {},
  extra?: Partial<ParentObject>,
) {
  const answer = sync({ parent: parent(spec, extra), children });
  return { ...answer, status: answer.status as Loose, children: answer.children as Loose[] };
}

export function kindOf(children: readonly KubeObject[], kind: string): Loose | undefined {
  return children.find((c) => c.kind === kind) as Loose | undefined;
}

/** The Deployment's only container. */
export function containerOf(children: readonly KubeObject[]): Loose {
  return kindOf(children, "Deployment")?.spec.template.spec.containers[0];
}
