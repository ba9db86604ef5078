import { BadInput, NotFound, TooManyRequests } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import type { Session } from '../../platform/session.ts';
import { configureProduct, jsonBytes, type CatalogRequest, type Selection } from '../catalog/index.ts';
import { newConfigurationId } from './ids.ts';
import { deleteConfiguration, insertConfigurationWithinRate, type ConfigurationRow } from './repository.ts';
import type { ConfigurationDb } from './tables.ts';

export interface SaveContext {
  db: ConfigurationDb;
  logger: Logger;
  catalog: CatalogRequest;
  session: Session;
  savesPerMinute: number;
}

/** Checks the selection against today's catalogue and stores it with its price; refuses any violation. */
export async function saveConfiguration(
  ctx: SaveContext,
  productId: string,
  selections: readonly Selection[],
): Promise<ConfigurationRow> {
  const configured = await configureProduct(ctx.catalog.loaders, productId, selections, ctx.catalog.answer);
  if (!configured) throw new NotFound(`No product with id "${productId}".`);
  const { product, evaluation } = configured;
  if (!evaluation.valid) {
    // The violations echo what was sent (ids, the rules' messages): weighed like any answer before it is sent.
    const extensions = { violations: evaluation.violations };
    ctx.catalog.answer.chargeBytes(jsonBytes(extensions));
    throw new BadInput('The selection breaks the rules of the product; see extensions.violations.', extensions);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const id = newConfigurationId();
    const outcome = await insertConfigurationWithinRate(
      ctx.db,
      {
        id,
        productId: product.id,
        userId: ctx.session.user.id,
        tokenId: ctx.session.tokenId,
        selections: evaluation.choices.map(({ customisationId, name, value, mode, amountCents }) => ({
          customisationId,
          name,
          value,
          mode,
          amountCents,
        })),
        baseCents: evaluation.price.baseCents,
        totalCents: evaluation.price.totalCents,
        currency: evaluation.price.currency,
        productUpdatedAt: product.updatedAt,
      },
      ctx.savesPerMinute,
    );
    if ('retryAfterSeconds' in outcome) {
      const seconds = outcome.retryAfterSeconds;
      throw new TooManyRequests(`Too many configurations saved; try again in ${seconds} s.`, seconds);
    }
    if (outcome.inserted) {
      // Never the selection's values: they are the customer's own text.
      ctx.logger.info(
        {
          userId: ctx.session.user.id,
          tokenId: ctx.session.tokenId,
          operation: 'saveConfiguration',
          configurationId: id,
          productId: product.id,
        },
        'configuration saved',
      );
      return outcome.inserted;
    }
  }
  throw new Error('No free configuration id after 3 attempts');
}

export async function removeConfiguration(
  db: ConfigurationDb,
  logger: Logger,
  session: Session,
  id: string,
): Promise<ConfigurationRow> {
  const row = await deleteConfiguration(db, id);
  if (!row) throw new NotFound(`No configuration with id "${id}".`);
  logger.info(
    { userId: session.user.id, tokenId: session.tokenId, operation: 'deleteConfiguration', configurationId: id },
    'configuration deleted',
  );
  return row;
}
