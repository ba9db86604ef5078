import { getOperationAST, getVariableValues } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../../config.ts';
import { argumentsOf, fragmentsOf, operationCost } from '../cost.ts';
import { createGatewayCheck, GATEWAY_SECRET_HEADER, isFederationField, rootFields } from '../federation.ts';
import { AnswerTooLarge } from '../../platform/errors.ts';
import { forbiddenError, validationError, variableError } from '../errors.ts';

export type ExecutionLimitsConfig = Pick<Config, 'graphql' | 'federation'>;

/**
 * Checks that depend on the request's variables and headers, so they run per execution (validation is cached
 * per document): variable types, gateway-only federation fields, and cost at the values that will execute.
 */
export function useExecutionLimits(config: ExecutionLimitsConfig): Plugin<{ request: Request }> {
  const isGateway = createGatewayCheck(config.federation.secret);
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      let variables: Record<string, unknown> = {};
      if (operation.variableDefinitions?.length) {
        const inputs = (args.variableValues ?? {}) as Record<string, unknown>;
        const coerced = getVariableValues(args.schema, operation.variableDefinitions, inputs, { maxErrors: 20 });
        if (coerced.errors) return setResultAndStopExecution({ errors: coerced.errors.map(variableError) });
        variables = coerced.coerced;
      }
      const fragments = fragmentsOf(args.document);
      const federation = rootFields(operation.selectionSet, fragments).filter(isFederationField);
      if (federation.length > 0) {
        if (!isGateway(args.contextValue.request.headers.get(GATEWAY_SECRET_HEADER))) {
          return setResultAndStopExecution({
            errors: [forbiddenError('Only the federation gateway may query _entities and _service.')],
          });
        }
        const entities = args.schema.getQueryType()?.getFields()['_entities'];
        let representations = 0;
        for (const node of federation) {
          const list =
            entities && node.name.value === '_entities'
              ? argumentsOf(entities, node, variables)?.['representations']
              : undefined;
          if (Array.isArray(list)) representations += list.length;
        }
        if (representations > config.federation.maxRepresentations) {
          const max = config.federation.maxRepresentations;
          return setResultAndStopExecution({
            errors: [validationError(`Too many representations: ${representations} (at most ${max} per request).`)],
          });
        }
      }
      const cost = operationCost(args.schema, fragments, operation, variables, config.graphql.maxPageSize);
      if (cost > config.graphql.maxCost) {
        return setResultAndStopExecution({
          errors: [validationError(`Query cost limit of ${config.graphql.maxCost} exceeded, found ${cost}.`)],
        });
      }
      // An answer over its size bound (found by the resolvers, AnswerTooLarge) is refused whole: one
      // error, no data, 400; the partial answer and its other errors (one per list that hit it) are dropped.
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors) return;
          const refusal = result.errors.map((e) => e.originalError).find((e) => e instanceof AnswerTooLarge);
          if (refusal) setResult({ errors: [validationError(refusal.message)] });
        },
      };
    },
  };
}
