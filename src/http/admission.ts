// AdmissionReview v1 and ConversionReview v1 adapters: decode the review, call the resource's pure rules,
// encode the answer. The API server calls these over TLS only. A rule that throws still gets an answer that
// says so (allowed: false, or result Failure), never a 5xx and never a stack.
import type { RequestHandler } from "express";
import type { Logger } from "pino";
import { isRecord } from "../metacontroller/observed.js";
import type { ParentObject } from "../metacontroller/types.js";
import type { Admission, Decision, Resource } from "../resources/resource.js";
import { HttpError } from "./errors.js";

const ADMISSION_API = "admission.k8s.io/v1";
const CONVERSION_API = "apiextensions.k8s.io/v1";

interface AdmissionRequest {
  uid: string;
  operation?: string;
  object?: ParentObject;
  oldObject?: ParentObject | null;
}

function decodeReview(body: unknown, kind: string, field: "request"): AdmissionRequest {
  if (!isRecord(body) || body.kind !== kind || !isRecord(body[field])) {
    throw new HttpError(400, `request body must be a ${kind} with a ${field}`);
  }
  const request = body[field] as Record<string, unknown>;
  if (typeof request.uid !== "string" || request.uid === "")
    throw new HttpError(400, `${field}.uid: Required value`);
  return request as unknown as AdmissionRequest;
}

function admissionReview(response: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: ADMISSION_API, kind: "AdmissionReview", response };
}

function denied(uid: string, message: string): Record<string, unknown> {
  return admissionReview({ uid, allowed: false, status: { code: 403, reason: "Forbidden", message } });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The object under review, or why there is none. */
function reviewed(request: AdmissionRequest): ParentObject | string {
  return isRecord(request.object) ? request.object : "request.object: Required value";
}

/** The AdmissionReview answering a decision: allowed with its warnings, or denied with its message. */
function decisionReview(uid: string, decision: Decision): Record<string, unknown> {
  if (!decision.allowed) return denied(uid, decision.message ?? "refused");
  const warnings = decision.warnings.length > 0 ? { warnings: decision.warnings } : {};
  return admissionReview({ uid, allowed: true, ...warnings });
}

export function validateHandler(resource: Resource, admission: Admission, logger: Logger): RequestHandler {
  return (req, res) => {
    const request = decodeReview(req.body, "AdmissionReview", "request");
    const log = logger.child({ resource: resource.name, uid: request.uid, operation: request.operation });
    // Deletes and connects carry no new spec to judge.
    if (request.operation !== "CREATE" && request.operation !== "UPDATE") {
      res.json(admissionReview({ uid: request.uid, allowed: true }));
      return;
    }
    const object = reviewed(request);
    if (typeof object === "string") {
      res.json(denied(request.uid, object));
      return;
    }
    const old = request.operation === "UPDATE" && isRecord(request.oldObject) ? request.oldObject : undefined;
    let decision: Decision;
    try {
      decision = admission.validate(object, old);
    } catch (error) {
      log.error({ err: error }, "validation failed");
      decision = {
        allowed: false,
        message: `dbhooks could not validate this ${resource.crd.kind}: ${errorMessage(error)}`,
        warnings: [],
      };
    }
    if (!decision.allowed)
      log.info(
        { name: object.metadata?.name, namespace: object.metadata?.namespace },
        `refused: ${decision.message}`,
      );
    res.json(decisionReview(request.uid, decision));
  };
}

export function mutateHandler(resource: Resource, admission: Admission, logger: Logger): RequestHandler {
  return (req, res) => {
    const request = decodeReview(req.body, "AdmissionReview", "request");
    const object = reviewed(request);
    if (typeof object === "string") {
      res.json(denied(request.uid, object));
      return;
    }
    try {
      const patch = admission.mutate(object);
      res.json(
        admissionReview({
          uid: request.uid,
          allowed: true,
          ...(patch.length > 0
            ? { patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(patch)).toString("base64") }
            : {}),
        }),
      );
    } catch (error) {
      logger.error({ err: error, resource: resource.name, uid: request.uid }, "mutation failed");
      res.json(
        denied(request.uid, `dbhooks could not default this ${resource.crd.kind}: ${errorMessage(error)}`),
      );
    }
  };
}

interface ConversionRequest {
  uid: string;
  desiredAPIVersion?: unknown;
  objects?: unknown;
}

export function convertHandler(
  resource: Resource,
  convert: NonNullable<Resource["convert"]>,
  logger: Logger,
): RequestHandler {
  return (req, res) => {
    const request = decodeReview(req.body, "ConversionReview", "request") as unknown as ConversionRequest;
    const answer = (result: Record<string, unknown>) =>
      res.json({
        apiVersion: CONVERSION_API,
        kind: "ConversionReview",
        response: { uid: request.uid, ...result },
      });
    try {
      if (typeof request.desiredAPIVersion !== "string")
        throw new Error("request.desiredAPIVersion: Required value");
      if (!Array.isArray(request.objects) || !request.objects.every(isRecord))
        throw new Error("request.objects: must be a list of objects");
      const desired = request.desiredAPIVersion;
      const convertedObjects = (request.objects as ParentObject[]).map((object) => convert(object, desired));
      answer({ convertedObjects, result: { status: "Success" } });
    } catch (error) {
      logger.warn({ resource: resource.name, uid: request.uid, err: error }, "conversion failed");
      answer({ convertedObjects: [], result: { status: "Failure", message: errorMessage(error) } });
    }
  };
}
