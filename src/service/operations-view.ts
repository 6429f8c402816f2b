/**
 * GET /api/operations: the document operations jobs may run here (merge, split, rotate...), how
 * many files of which format each takes, and the JSON Schema of its options. Computed once per router.
 */
import { z } from 'zod';
import type { ServiceEngine } from './service-engine.js';
import type { OperationsResponse } from './wire/index.js';

export async function describeOperations(
  engine: Pick<ServiceEngine, 'operations'>,
): Promise<OperationsResponse> {
  const operations = await engine.operations();
  return {
    operations: operations
      .filter((operation) => operation.ok)
      .map((operation) => ({
        name: operation.name,
        description: operation.description,
        input: operation.input,
        minInputs: operation.minInputs,
        maxInputs: operation.maxInputs,
        // io 'input': what a client may send (defaults make fields optional).
        options: z.toJSONSchema(operation.optionsSchema, { io: 'input', unrepresentable: 'any' }),
      })),
  };
}
