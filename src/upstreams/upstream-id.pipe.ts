import { Injectable, type PipeTransform } from '@nestjs/common';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { ENV_UPSTREAM_ID } from './environment-upstreams';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An upstream id in a path: a uuid (a row) or `env:<provider>`; anything else is 400 VALIDATION_FAILED. */
@Injectable()
export class UpstreamIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (UUID.test(value) || ENV_UPSTREAM_ID.test(value)) return value.toLowerCase();
    throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'id must be a UUID or env:<provider>');
  }
}
