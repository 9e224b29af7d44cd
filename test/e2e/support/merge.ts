// The three-way merge Metacontroller uses to update a child (pkg/dynamic/apply): observed, last applied,
// desired. Fields the hook never set are left alone; fields it stopped setting are removed; lists of
// objects are merged by a key every item has, other lists are replaced whole.

// biome-ignore lint/suspicious/noExplicitAny: JSON values
type Value = any;

const LIST_MERGE_KEYS = ["containerPort", "port", "mountPath", "name", "uid", "ip", "path"];

const isObject = (v: Value): v is Record<string, Value> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function mergeKey(...lists: Value[][]): string | undefined {
  const items = lists.flat();
  if (items.length === 0 || !items.every(isObject)) return undefined;
  return LIST_MERGE_KEYS.find((key) => items.every((item) => key in item));
}

function mergeList(observed: Value[], lastApplied: Value[] | undefined, desired: Value[]): Value[] {
  const key = mergeKey(observed, desired, lastApplied ?? []);
  if (!key) return structuredClone(desired);
  const find = (list: Value[] | undefined, item: Value) => list?.find((x) => x[key] === item[key]);
  const merged = desired.map((item) =>
    find(observed, item)
      ? mergeValue(find(observed, item), find(lastApplied, item), item)
      : structuredClone(item),
  );
  // Items someone else added (not in last applied) stay; items the hook stopped sending go.
  const kept = observed.filter((item) => !find(desired, item) && !find(lastApplied, item));
  return [...merged, ...structuredClone(kept)];
}

export function mergeValue(observed: Value, lastApplied: Value, desired: Value): Value {
  if (isObject(desired) && isObject(observed))
    return mergeObject(observed, isObject(lastApplied) ? lastApplied : undefined, desired);
  if (Array.isArray(desired) && Array.isArray(observed))
    return mergeList(observed, Array.isArray(lastApplied) ? lastApplied : undefined, desired);
  return structuredClone(desired);
}

function mergeObject(
  observed: Record<string, Value>,
  lastApplied: Record<string, Value> | undefined,
  desired: Record<string, Value>,
): Record<string, Value> {
  const result: Record<string, Value> = structuredClone(observed);
  for (const [key, value] of Object.entries(desired))
    result[key] =
      key in observed ? mergeValue(observed[key], lastApplied?.[key], value) : structuredClone(value);
  for (const key of Object.keys(lastApplied ?? {})) if (!(key in desired)) delete result[key];
  return result;
}
