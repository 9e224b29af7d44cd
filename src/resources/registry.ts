import { databaseResource } from "./database/index.js";
import type { Resource } from "./resource.js";
import { webServiceResource } from "./webservice/index.js";

/** Every resource this service serves. Reads each CRD from manifests/ and compiles its schema. */
export function loadResources(): Resource[] {
  return [databaseResource(), webServiceResource()];
}
