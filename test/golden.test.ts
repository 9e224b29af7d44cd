// One table-driven test over every folder under hooks/: the pure hook must answer exactly response.json.
// After an intended change, UPDATE_GOLDEN=1 npm run test:unit rewrites the files; review the diff.
import { describe, expect, it } from "vitest";
import { loadResources } from "../src/resources/registry.js";
import {
  FIXTURE_CONTEXT,
  fixtures,
  responseFileText,
  UPDATE_GOLDEN,
  writeResponse,
} from "./support/fixtures.js";

const resources = new Map(loadResources().map((r) => [r.name, r]));
const all = fixtures();

describe("golden fixtures", () => {
  it("covers every case the hooks must handle", () => {
    const names = all.map((f) => `${f.resource}/${f.name}`);
    for (const required of [
      "database/postgresql-single",
      "database/postgresql-replicas-running",
      "database/mysql",
      "database/mysql-replicas",
      "database/mongodb",
      "database/backups-disabled",
      "database/invalid-spec-existing-children",
      "database/upgrade-in-progress",
      "database/major-upgrade-refused",
      "database/finalize-waiting",
      "database/finalize-done",
      "database/v2-child-keys",
      "webservice/new",
      "webservice/with-database",
      "webservice/with-ingress",
      "webservice/running",
      "webservice/invalid-spec-existing-children",
      "webservice/v2-child-keys",
    ]) {
      expect(names).toContain(required);
    }
  });

  it.each(all.map((f) => [`${f.resource}/${f.name}`, f] as const))("%s", (_name, fixture) => {
    const resource = resources.get(fixture.resource);
    if (!resource) throw new Error(`no resource ${fixture.resource} for hooks/${fixture.resource}`);
    const hook = fixture.hook === "finalize" ? resource.finalize : resource.sync;
    if (!hook) throw new Error(`${fixture.resource} has no ${fixture.hook} hook`);
    const actual = responseFileText(hook(fixture.request, FIXTURE_CONTEXT));
    if (UPDATE_GOLDEN) writeResponse(fixture, actual);
    else expect(actual).toBe(fixture.responseText);
  });
});
