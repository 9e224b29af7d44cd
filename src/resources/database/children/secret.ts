import type { Secret } from "kubernetes-types/core/v1.js";
import { deriveSecret } from "../credentials.js";
import { type DatabaseModel, metadata } from "../model.js";

/**
 * The credentials Secret. Once observed, its data is returned verbatim forever: the database only reads
 * these values on its first start, so a changed password would lock every client out.
 */
export function credentialsSecret(
  model: DatabaseModel,
  observed: Secret | undefined,
  key: Uint8Array,
): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: metadata(model, model.names.secret),
    type: "Opaque",
    data: observed?.data ? sortedCopy(observed.data) : initialData(model, key),
  };
}

function initialData(model: DatabaseModel, key: Uint8Array): Record<string, string> {
  const { database, profile, names } = model;
  const seed = database.uid || `${database.namespace}/${database.name}`;
  const connection = {
    host: `${names.primaryService}.${database.namespace}.svc.cluster.local`,
    port: profile.port.number,
    username: profile.credentials.username,
    password: deriveSecret(key, seed, "password"),
    database: profile.credentials.database,
    replicaSet: database.name,
  };
  const values: Record<string, string> = {
    database: connection.database,
    host: connection.host,
    password: connection.password,
    port: String(connection.port),
    uri: profile.credentials.uri(connection),
    username: connection.username,
  };
  for (const extra of profile.credentials.extraSecrets) values[extra] = deriveSecret(key, seed, extra);
  return sortedCopy(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, base64(v)])));
}

function base64(value: string): string {
  return Buffer.from(value, "utf8").toString("base64");
}

function sortedCopy(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((k) => [k, data[k] as string]),
  );
}
