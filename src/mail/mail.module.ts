import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { MailTransport } from './mail-transport';
import { MailService } from './mail.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { mailConfig } from './mail.config';

/**
 * Transactional mail: nodemailer behind MailTransport, every send queued through `jobs`
 * (architecture "mail ──► jobs"). Feature modules call MailService.send and know no transport.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(mailConfig), JobsModule],
  providers: [MailService, MailTransport],
  exports: [MailService],
})
export class MailModule {}
