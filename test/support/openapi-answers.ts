/**
 * Checks an answer against what an OpenAPI document declares for its operation and status:
 * the status is declared (or a `default` covers it), each declared header is present when
 * required and matches its schema, and the body matches the JSON schema (Ajv, JSON Schema
 * 2020-12, the document's components resolvable).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

interface MediaType {
  schema?: object;
}
interface Response {
  headers?: Record<string, { required?: boolean; schema?: object }>;
  content?: Record<string, MediaType>;
}
interface Operation {
  responses: Record<string, Response>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: object;
}

/** One answer: its status, its headers and its body parsed as JSON (undefined when empty). */
export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A checker of answers against `document`; it returns the problems found, in words. */
export function answerChecker(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat("int64", true);
  ajv.addFormat("date-time", true);
  ajv.addSchema({ $id: "doc", components: document.components });
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (schema: object) => {
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/');
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text) as object);
      compiled.set(text, validate);
    }
    return validate;
  };
  const problemsOf = (validate: ValidateFunction, value: unknown, where: string) =>
    validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${where}${e.instancePath} ${e.message ?? ""}`);

  return (path: string, method: string, answer: Answer): string[] => {
    const operation = document.paths[path]?.[method];
    if (!operation) return [`the document has no ${method} ${path}`];
    const response = operation.responses[String(answer.status)] ?? operation.responses.default;
    if (!response) return [`${String(answer.status)} is not declared`];
    const problems: string[] = [];
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      const value = answer.headers.get(name);
      if (value === null) {
        if (header.required === true) problems.push(`header ${name} is missing`);
      } else if (header.schema) {
        problems.push(...problemsOf(validatorOf(header.schema), value, `header ${name}`));
      }
    }
    const json = response.content?.["application/json"];
    if (json?.schema) {
      const type = answer.headers.get("content-type") ?? "";
      if (!type.startsWith("application/json")) problems.push(`content-type is ${type}`);
      problems.push(...problemsOf(validatorOf(json.schema), answer.body, "body"));
    } else if (answer.body !== undefined) {
      problems.push("a body where the document declares none");
    }
    return problems;
  };
}
