import { Global, Module } from '@nestjs/common';
import { ErrorPresenter } from './error-presenter';

/** Makes ErrorPresenter available to every module (the error filter and the AI streams). */
@Global()
@Module({ providers: [ErrorPresenter], exports: [ErrorPresenter] })
export class ErrorsModule {}
