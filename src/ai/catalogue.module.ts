import { Module } from '@nestjs/common';
import { ModelCatalogue } from './model-catalogue';

/**
 * The model catalogue alone (configuration only, no feature module), so that modules which
 * validate a model id (user preferences) need not import the whole AI module.
 */
@Module({ providers: [ModelCatalogue], exports: [ModelCatalogue] })
export class CatalogueModule {}
