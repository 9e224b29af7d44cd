// Properties of the pure sync hook over generated Databases and observed states (fast-check).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type HookRequest,
  type KubeObject,
  LAST_APPLIED_ANNOTATION,
} from "../../src/metacontroller/types.js";
import { loadDatabaseSchema } from "../../src/resources/database/index.js";
import { type Loose, observedAs, sync } from "../support/database.js";
import { engineChangeScenario, invalidScenario, type Scenario, validScenario } from "./arbitraries.js";

const RUNS = { numRuns: 150 };
const schema = loadDatabaseSchema();

const DNS_1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
/** The longest name Kubernetes accepts for each kind, counting what its controllers append. */
const MAX_NAME: Record<string, number> = {
  Service: 63, // a DNS-1035 label
  StatefulSet: 52, // pods' controller-revision-hash label is <name>-<10 characters>, at most 63
  CronJob: 52, // its Jobs are <name>-<11 characters>
  Job: 63, // its pods carry the job-name label
};

const text = (value: unknown) => JSON.stringify(value);
const identity = (o: KubeObject) => `${o.kind}/${o.metadata?.name}`;

/** What is wrong with a child's name, namespace and label values: nothing, for every child. */
function nameProblems(child: KubeObject, namespace: string | undefined): string[] {
  const name = String(child.metadata?.name);
  const problems = [
    DNS_1123_SUBDOMAIN.test(name) ? "" : `${name}: not a DNS-1123 subdomain`,
    name.length <= (MAX_NAME[String(child.kind)] ?? 253) ? "" : `${name}: too long for a ${child.kind}`,
    child.kind !== "Service" || DNS_1035_LABEL.test(name) ? "" : `${name}: not a DNS-1035 label`,
    child.metadata?.namespace === namespace ? "" : `namespace ${child.metadata?.namespace}`,
  ];
  for (const value of Object.values(child.metadata?.labels ?? {})) {
    if (value.length > 63 || !LABEL_VALUE.test(value)) problems.push(`label value ${value}`);
  }
  return problems.filter(Boolean);
}

/** The children of `answer` fed back as observed, with the controllers' status of the same children before. */
function fedBack(request: HookRequest, children: readonly KubeObject[], status: Record<string, unknown>) {
  const before = new Map(
    Object.values(request.children)
      .flatMap((group) => Object.values(group))
      .map((o) => [identity(o), o as Loose]),
  );
  return {
    parent: { ...request.parent, status },
    children: observedAs(children, (o) => {
      const earlier = before.get(identity(o));
      if (earlier?.status && (o.kind === "StatefulSet" || o.kind === "CronJob")) o.status = earlier.status;
    }),
  };
}

describe("sync over generated valid Databases", () => {
  it("answers byte-identically for the same input, and leaves the request untouched", () => {
    fc.assert(
      fc.property(validScenario, ({ request }) => {
        const before = text(request);
        const first = text(sync(request));
        expect(text(sync(structuredClone(request)))).toBe(first);
        expect(text(request)).toBe(before);
      }),
      RUNS,
    );
  });

  it("gives the same children when its own answer comes back observed, and its status converges", () => {
    fc.assert(
      fc.property(validScenario, ({ request }) => {
        const first = sync(request);
        let next = fedBack(request, first.children, first.status);
        let answer = sync(next);
        expect(text(answer.children)).toBe(text(first.children));
        // The phase may move on (Pending -> Creating -> ...) as the previous status changes; with nothing
        // else changing it settles within a few syncs, and then stays.
        for (let step = 0; step < 4 && text(answer.status) !== text(next.parent.status); step++) {
          next = { ...next, parent: { ...next.parent, status: answer.status } };
          answer = sync(next);
        }
        expect(answer.status).toEqual(next.parent.status);
        expect(text(answer.children)).toBe(text(first.children));
      }),
      RUNS,
    );
  });

  it("names every child with a valid DNS-1123 name within its kind's length limit, in the parent's namespace", () => {
    fc.assert(
      fc.property(validScenario, ({ request }) => {
        for (const child of sync(request).children) {
          expect(nameProblems(child, request.parent.metadata?.namespace), identity(child)).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it("answers a status the CRD's status schema accepts", () => {
    fc.assert(
      fc.property(validScenario, ({ request }) => {
        expect(schema.validateStatus(sync(request).status)).toEqual([]);
      }),
      RUNS,
    );
  });
});

describe("sync over generated invalid Databases", () => {
  const kept = ({ observed }: Scenario) =>
    observed.filter((o) => typeof o?.metadata?.name === "string").map((o) => String(o.metadata?.name));

  it("is Failed, keeps every observed child, and answers a valid status", () => {
    fc.assert(
      fc.property(invalidScenario, (scenario) => {
        const before = text(scenario.request);
        const answer = sync(scenario.request);
        expect(answer.status.phase).toBe("Failed");
        expect(schema.validateStatus(answer.status)).toEqual([]);
        const answered = answer.children.map((c) => String(c.metadata?.name));
        for (const name of kept(scenario)) expect(answered).toContain(name);
        expect(answer.children).toHaveLength(kept(scenario).length);
        expect(text(sync(structuredClone(scenario.request)))).toBe(text(answer));
        expect(text(scenario.request)).toBe(before);
      }),
      RUNS,
    );
  });

  it("keeps every observed child, as it is, when an engine change is refused", () => {
    fc.assert(
      fc.property(engineChangeScenario, (scenario) => {
        const answer = sync(scenario.request);
        const running = scenario.observed.some((o) => o.kind === "StatefulSet");
        expect(answer.status.conditions).toContainEqual(
          expect.objectContaining({ reason: running ? "EngineChangeRefused" : expect.any(String) }),
        );
        if (!running) return;
        // Each as Metacontroller last applied it, so that its three-way merge changes nothing.
        const lastApplied = scenario.observed.map((o) =>
          JSON.parse(String(o.metadata?.annotations?.[LAST_APPLIED_ANNOTATION])),
        );
        const byIdentity = (a: KubeObject, b: KubeObject) => identity(a).localeCompare(identity(b));
        expect([...answer.children].sort(byIdentity)).toEqual(lastApplied.sort(byIdentity));
      }),
      RUNS,
    );
  });
});
