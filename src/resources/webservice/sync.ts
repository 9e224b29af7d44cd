// (WebService, observed children, clock) -> desired children and status. Pure: no I/O, no clock reads.
import { asUnchanged, Observed } from "../../metacontroller/observed.js";
import { parentIdentity } from "../../metacontroller/parent.js";
import type { HookContext, HookRequest, HookResponse, KubeObject } from "../../metacontroller/types.js";
import type { CompiledSchema } from "../../schema/crd.js";
import { deployment } from "./children/deployment.js";
import { ingress } from "./children/ingress.js";
import { service } from "./children/service.js";
import { parseWebService, type WebService } from "./spec.js";
import { webServiceStatus } from "./status.js";

/** The children a WebService should have, in a fixed order. */
export function desiredChildren(webService: WebService): KubeObject[] {
  const { host, enabled } = webService.spec.ingress;
  return [
    deployment(webService),
    service(webService),
    ...(enabled && host ? [ingress(webService, host)] : []),
  ] as KubeObject[];
}

export function syncWebService(
  schema: CompiledSchema,
  request: HookRequest,
  context: HookContext,
): HookResponse {
  const observed = new Observed(request.children);
  const input = {
    identity: parentIdentity(request.parent),
    observed,
    previous: request.parent.status,
    now: context.now,
  };
  const parsed = parseWebService(request.parent, schema);
  // Metacontroller deletes what an answer leaves out: a spec we cannot apply keeps every child as it is.
  if (!parsed.ok) {
    const problem = { reason: "InvalidSpec", message: parsed.errors.join("; ") } as const;
    return { status: webServiceStatus({ ...input, problem }), children: observed.all().map(asUnchanged) };
  }
  return { status: webServiceStatus(input), children: desiredChildren(parsed.webService) };
}
