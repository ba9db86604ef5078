import { getOperationAST, getVariableValues, type GraphQLError } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Config } from '../config.ts';
import { argumentsOf, fragmentsOf, operationCost } from './cost.ts';
import { createGatewayCheck, GATEWAY_SECRET_HEADER, isFederationField, rootFields } from './federation.ts';
import { limitError } from './limits.ts';

export type ExecutionLimitsConfig = Pick<
  Config,
  'graphqlMaxCost' | 'maxPageSize' | 'federationSecret' | 'federationMaxRepresentations'
>;

const badUserInput = (e: GraphQLError) =>
  createGraphQLError(e.message, { nodes: e.nodes, extensions: { code: 'BAD_USER_INPUT', http: { status: 400, spec: false } } });

const gatewayOnly = () =>
  createGraphQLError('Only the federation gateway may query _entities and _service.', {
    extensions: { code: 'FORBIDDEN', http: { status: 403, spec: false } },
  });

/**
 * The checks that depend on the request, not only on the document, so they run
 * per request just before execution (validation results are cached per
 * document): variables of the wrong type are the client's input error
 * (graphql-js reports them without a code); only the gateway may use the
 * federation fields, with a bounded number of representations; and the cost is
 * priced with the variable values that will execute. No resolver, and no SQL,
 * runs for a refused request.
 */
export function useExecutionLimits(config: ExecutionLimitsConfig): Plugin<{ request: Request }> {
  const isGateway = createGatewayCheck(config.federationSecret);
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation) return;
      let variables: Record<string, unknown> = {};
      if (operation.variableDefinitions?.length) {
        const inputs = (args.variableValues ?? {}) as Record<string, unknown>;
        const coerced = getVariableValues(args.schema, operation.variableDefinitions, inputs, { maxErrors: 20 });
        if (coerced.errors) return setResultAndStopExecution({ errors: coerced.errors.map(badUserInput) });
        variables = coerced.coerced;
      }
      const fragments = fragmentsOf(args.document);
      const federation = rootFields(operation.selectionSet, fragments).filter(isFederationField);
      if (federation.length > 0) {
        if (!isGateway(args.contextValue.request.headers.get(GATEWAY_SECRET_HEADER))) {
          return setResultAndStopExecution({ errors: [gatewayOnly()] });
        }
        const entities = args.schema.getQueryType()?.getFields()['_entities'];
        let representations = 0;
        for (const node of federation) {
          const list = entities && node.name.value === '_entities' ? argumentsOf(entities, node, variables)?.['representations'] : undefined;
          if (Array.isArray(list)) representations += list.length;
        }
        if (representations > config.federationMaxRepresentations) {
          const max = config.federationMaxRepresentations;
          return setResultAndStopExecution({
            errors: [limitError(`Too many representations: ${representations} (at most ${max} per request).`)],
          });
        }
      }
      const cost = operationCost(args.schema, fragments, operation, variables, config.maxPageSize);
      if (cost > config.graphqlMaxCost) {
        setResultAndStopExecution({ errors: [limitError(`Query cost limit of ${config.graphqlMaxCost} exceeded, found ${cost}.`)] });
      }
    },
  };
}
