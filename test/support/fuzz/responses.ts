// Checks an answer against the operation's documented responses: the status must be documented,
// and the body must validate (JSON Schema 2020-12, as OpenAPI 3.1 says) against that status's schema.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenApiDocument, Operation } from './operations.js';
import type { JsonSchema } from './schema-arbitrary.js';

const DOC_ID = 'https://agentd.invalid/openapi.json';

export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addFormat('password', true);
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components });
  }

  private validator(op: Operation, status: string, schema: JsonSchema): ValidateFunction {
    const key = `${op.key} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      // The document's local refs (#/components/...) point into the registered document.
      const text = JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`);
      validate = this.ajv.compile(JSON.parse(text) as object);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** The problems with an answer; empty when it matches the document. */
  problems(op: Operation, status: number, text: string): string[] {
    const documented =
      String(status) in op.responses ? String(status) : 'default' in op.responses ? 'default' : null;
    if (status >= 500) return [`server error ${status}: ${text.slice(0, 300)}`];
    if (documented === null) {
      return [
        `status ${status} is not documented (documented: ${Object.keys(op.responses).join(', ')}): ${text.slice(0, 300)}`,
      ];
    }
    const schema = op.responses[documented];
    if (!schema) return [];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`status ${status}: body is not JSON: ${text.slice(0, 200)}`];
    }
    const validate = this.validator(op, documented, schema);
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`);
    return [`status ${status}: body does not match its schema: ${errors.join('; ')}: ${text.slice(0, 300)}`];
  }
}
