import { type CompiledSchema, compileSchema, readCrd } from "../../schema/crd.js";
import type { Resource } from "../resource.js";
import { CHILD_KINDS } from "./kinds.js";
import { syncWebService } from "./sync.js";

/** manifests/crds/webservice.yaml, from src/ and from dist/ alike. */
export const WEBSERVICE_CRD_FILE = new URL("../../../manifests/crds/webservice.yaml", import.meta.url);

export function loadWebServiceSchema(): CompiledSchema {
  return compileSchema(readCrd(WEBSERVICE_CRD_FILE));
}

/** No finalize hook: nothing has to happen before the garbage collector removes the children. */
export function webServiceResource(schema: CompiledSchema = loadWebServiceSchema()): Resource {
  return {
    name: "webservice",
    crd: schema.crd,
    childKinds: Object.values(CHILD_KINDS),
    sync: (request, context) => syncWebService(schema, request, context),
  };
}
