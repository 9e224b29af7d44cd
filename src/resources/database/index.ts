import { type CompiledSchema, compileSchema, readCrd } from "../../schema/crd.js";
import type { Resource } from "../resource.js";
import { mutateDatabase, validateDatabase } from "./admission.js";
import { convertDatabase } from "./conversion.js";
import { finalizeDatabase } from "./finalize.js";
import { CHILD_KINDS } from "./kinds.js";
import { syncDatabase } from "./sync.js";

/** manifests/crds/database.yaml, from src/ and from dist/ alike. */
export const DATABASE_CRD_FILE = new URL("../../../manifests/crds/database.yaml", import.meta.url);

export function loadDatabaseSchema(): CompiledSchema {
  return compileSchema(readCrd(DATABASE_CRD_FILE));
}

export function databaseResource(schema: CompiledSchema = loadDatabaseSchema()): Resource {
  return {
    name: "database",
    crd: schema.crd,
    childKinds: Object.values(CHILD_KINDS),
    sync: (request, context) => syncDatabase(schema, request, context),
    finalize: (request, context) => finalizeDatabase(schema, request, context),
    admission: {
      validate: (object, oldObject) => validateDatabase(schema, object, oldObject),
      mutate: (object) => mutateDatabase(schema, object),
    },
    convert: convertDatabase,
  };
}
