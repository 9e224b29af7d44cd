// `dbhooks render`: manifests of the served kinds (Database, WebService) in, the children the sync hook
// would create out, as YAML that `kubectl apply -f -` accepts. Pure: the same sync function as the hook,
// with nothing observed.
import { type Document, parseAllDocuments, stringify } from "yaml";
import { isRecord } from "../metacontroller/observed.js";
import type { HookContext, ParentObject } from "../metacontroller/types.js";
import type { Resource } from "../resources/resource.js";

export interface RenderInput {
  /** File name (or "-") and its text. */
  readonly sources: readonly { readonly name: string; readonly text: string }[];
  readonly resources: readonly Resource[];
  readonly context: HookContext;
  readonly withStatus: boolean;
}

export interface RenderOutput {
  readonly stdout: string;
  readonly errors: readonly string[];
}

// No anchors or aliases: kubectl reads them, but a reader (and a diff) should see every field spelled out.
const YAML_OPTIONS = { lineWidth: 0, aliasDuplicateObjects: false } as const;

/** The objects in one YAML document: itself, or a List's items. */
function objectsIn(document: Document, where: string): ParentObject[] | string {
  if (document.errors.length > 0) return `${where}: ${document.errors[0]?.message ?? "invalid YAML"}`;
  const value: unknown = document.toJS();
  if (value === null || value === undefined) return [];
  if (!isRecord(value)) return `${where}: not a Kubernetes object`;
  const isList = Array.isArray(value.items) && String(value.kind ?? "").endsWith("List");
  return isList ? (value.items as unknown[]).filter(isRecord) : [value];
}

/** Manifests as kubectl reads them: multi-document YAML, or JSON (a YAML subset). */
function parents(source: { name: string; text: string }, errors: string[]): ParentObject[] {
  return parseAllDocuments(source.text).flatMap((document, index) => {
    const objects = objectsIn(document as Document, `${source.name}: document ${index + 1}`);
    if (typeof objects === "string") errors.push(objects);
    return typeof objects === "string" ? [] : objects;
  });
}

function statusComment(parent: ParentObject, status: Record<string, unknown>): string {
  const id = `${parent.kind} ${parent.metadata?.namespace}/${parent.metadata?.name}`;
  const body = stringify({ status }, YAML_OPTIONS)
    .trimEnd()
    .split("\n")
    .map((line) => `# ${line}`);
  return [`# ${id}: computed with nothing observed yet`, ...body].join("\n");
}

/**
 * Why the hook refused the parent, if it did. Every resource says so the same way: a condition with reason
 * InvalidSpec whose message names the bad fields (a Database's Ready, a WebService's Available).
 */
function refusal(status: Record<string, unknown>): string | undefined {
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  const invalid = conditions.find((c) => c.reason === "InvalidSpec");
  return invalid ? String(invalid.message) : undefined;
}

/** The YAML documents for one parent, or the error that stops it. */
function renderParent(parsed: ParentObject, input: RenderInput): string[] | string {
  const resource = input.resources.find((r) => r.crd.kind === parsed.kind);
  const label = `${String(parsed.kind)} ${String(parsed.metadata?.name ?? "(no name)")}`;
  if (!resource) {
    return `${label}: kind ${JSON.stringify(parsed.kind)} is not rendered; known kinds: ${input.resources.map((r) => r.crd.kind).join(", ")}`;
  }
  const parent = {
    ...parsed,
    metadata: { ...parsed.metadata, namespace: parsed.metadata?.namespace || "default" },
  };
  const answer = resource.sync({ parent, children: {} }, input.context);
  const refused = refusal(answer.status);
  if (refused !== undefined) return `${label}: ${refused}`;
  const children = answer.children.map((child) => stringify(child, YAML_OPTIONS).trimEnd());
  // Comments ride on the first child's document, so the output stays one object per document.
  if (input.withStatus) children[0] = `${statusComment(parent, answer.status)}\n${children[0] ?? ""}`;
  return children;
}

export function render(input: RenderInput): RenderOutput {
  const errors: string[] = [];
  const documents: string[] = [];
  for (const source of input.sources) {
    for (const parent of parents(source, errors)) {
      const rendered = renderParent(parent, input);
      if (typeof rendered === "string") errors.push(`${source.name}: ${rendered}`);
      else documents.push(...rendered);
    }
  }
  return { stdout: documents.length > 0 ? `${documents.join("\n---\n")}\n` : "", errors };
}
