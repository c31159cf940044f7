import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { downloadHeaders, mapUpload, UploadBodyDto, UploadDto } from './dto/upload.dto';
import type { UploadedFile as StoredUpload } from './sniffing-storage.engine';
import { UploadLimitInterceptor } from './upload-limit.interceptor';
import { UploadsService } from './uploads.service';
import { UPLOAD_CONTENT_TYPES } from '../config/env.validation';

/**
 * Spec "Upload", envelope B. A session is required (the spec leaves it open). The file streams
 * to storage while multer parses the request (UPLOAD_MAX_BYTES → 413, a type outside
 * UPLOAD_ALLOWED_TYPES or not matching its name → 415).
 */
@ApiTags('uploads')
@Controller('api/upload')
export class UploadsController {
  constructor(private readonly uploads: UploadsService) {}

  /** multipart field `file` → 200 B `data = {url: '/uploads/<filename>', filename}`. */
  @Post()
  @HttpCode(200)
  @UseInterceptors(UploadLimitInterceptor, FileInterceptor('file'))
  @Endpoint({
    summary: 'Upload a file',
    access: 'session',
    errors: [
      { status: 400, description: 'No `file` part, or a malformed form (`VALIDATION_FAILED`)' },
      { status: 409, description: 'The stored name is taken; retry (`code`: CONFLICT)' },
      413,
      415,
    ],
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadBodyDto })
  @ApiEnvelopeB(UploadDto)
  async upload(
    @CurrentUser() user: SessionUser,
    @UploadedFile() file: StoredUpload | undefined,
  ): Promise<UploadDto> {
    return mapUpload(await this.uploads.record(user, file));
  }

  /** Deletes the caller's upload → 200 `{success: true}`; another user's or absent → 404. */
  @Delete(':filename')
  @Endpoint({ summary: 'Delete my upload', access: 'session', errors: [404] })
  @ApiEnvelopeB(null)
  async remove(
    @CurrentUser() user: SessionUser,
    @Param('filename') filename: string,
  ): Promise<void> {
    await this.uploads.remove(user, filename);
  }
}

/**
 * GET /uploads/{filename} (spec page route "uploaded files"), public. Anything but an image is
 * an attachment, always with `nosniff`; a traversal or unknown name → 404.
 */
@ApiTags('uploads')
@Controller('uploads')
export class UploadFilesController {
  constructor(private readonly uploads: UploadsService) {}

  @Get(':filename')
  @Endpoint({ summary: 'Download an uploaded file', access: 'public', errors: [404] })
  @ApiOkResponse({
    description: 'The file with its sniffed type; anything but an image as an attachment',
    content: Object.fromEntries(
      UPLOAD_CONTENT_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    ),
  })
  async download(
    @Param('filename') filename: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { upload, body } = await this.uploads.open(filename);
    res.set(downloadHeaders(upload));
    return new StreamableFile(body.stream, { length: body.size });
  }
}
