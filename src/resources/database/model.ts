// Everything the child builders need about one Database, computed once per sync.
import { createHash } from "node:crypto";
import { type EngineProfile, profileFor } from "./engines/index.js";
import { GiB } from "./engines/profile.js";
import { type ChildNames, childNames, commonLabels, type Labels, podSelector } from "./names.js";
import { type ContainerResources, containerResources, memoryBytes } from "./resources.js";
import type { Database } from "./spec.js";

export interface DatabaseModel {
  readonly database: Database;
  /** The version to run: spec.version, or the running one while a major change is refused. */
  readonly version: string;
  readonly image: string;
  readonly profile: EngineProfile;
  readonly names: ChildNames;
  readonly labels: Labels;
  readonly selector: Labels;
  readonly resources: ContainerResources;
  readonly configFiles: Record<string, string>;
  /** The profile's scripts: ConfigMap keys next to the config files. */
  readonly scripts: Readonly<Record<string, string>>;
}

export function databaseModel(database: Database, version: string): DatabaseModel {
  const profile = profileFor(database.spec.engine);
  const resources = containerResources(database.spec);
  return {
    database,
    version,
    image: `${profile.image}:${version}`,
    profile,
    names: childNames(database.name),
    labels: commonLabels(profile.engine, database.name),
    selector: podSelector(profile.engine, database.name),
    resources,
    configFiles: profile.configFiles({
      memoryLimitBytes: memoryBytes(resources.limits.memory) || GiB,
      storageBytes: memoryBytes(database.spec.storage.size),
    }),
    scripts: profile.scripts,
  };
}

/** Every key of the ConfigMap: the config files and the scripts. */
export function configMapData(model: DatabaseModel): Record<string, string> {
  return { ...model.configFiles, ...model.scripts };
}

function digest(files: Readonly<Record<string, string>>): string {
  const hash = createHash("sha256");
  for (const name of Object.keys(files).sort()) hash.update(`${name}\0${files[name]}\0`);
  return hash.digest("hex");
}

function configText(files: Readonly<Record<string, string>>): string {
  return Object.keys(files)
    .sort()
    .map((name) => `${name}\0${files[name]}\0`)
    .join("");
}

// Per profile's scripts (one constant object per engine): config text -> checksum. A few config texts recur
// on every sync of every Database; hashing each once is enough. A memo of a pure function changes no answer,
// and the bound keeps its memory flat.
const checksums = new WeakMap<object, Map<string, string>>();
const CHECKSUMS_KEPT = 512;

/** A stable digest of every ConfigMap key: a pod-template annotation, so a config change rolls the pods. */
export function configChecksum(model: DatabaseModel): string {
  let byConfig = checksums.get(model.scripts);
  if (!byConfig) {
    byConfig = new Map();
    checksums.set(model.scripts, byConfig);
  }
  const text = configText(model.configFiles);
  let sum = byConfig.get(text);
  if (sum === undefined) {
    sum = digest({ ...model.configFiles, ...model.scripts });
    if (byConfig.size >= CHECKSUMS_KEPT) byConfig.clear();
    byConfig.set(text, sum);
  }
  return sum;
}

export function metadata(
  model: DatabaseModel,
  name: string,
): { name: string; namespace: string; labels: Labels } {
  return { name, namespace: model.database.namespace, labels: { ...model.labels } };
}
