import { Module } from '@nestjs/common';
import { JobsModule } from '../jobs/jobs.module';
import { MailTransport } from './mail-transport';
import { MailService } from './mail.service';

/**
 * Transactional mail: nodemailer behind MailTransport, every send queued through `jobs`
 * (architecture "mail ──► jobs"). Feature modules call MailService.send and know no transport.
 */
@Module({
  imports: [JobsModule],
  providers: [MailService, MailTransport],
  exports: [MailService],
})
export class MailModule {}
