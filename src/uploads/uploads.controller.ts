import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Ip,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { downloadHeaders, mapUpload, UploadBodyDto, UploadDto } from './dto/upload.dto';
import type { UploadedFile as StoredUpload } from './sniffing-storage.engine';
import { UploadDownloads } from './upload-downloads.service';
import { UploadLimitInterceptor } from './upload-limit.interceptor';
import { UploadLinks } from './upload-links';
import { UploadsService } from './uploads.service';
import { UPLOAD_CONTENT_TYPES } from './uploads.config';

/**
 * Spec "Upload", envelope B. A session is required (the spec leaves it open). The file streams
 * to storage while multer parses the request (UPLOAD_MAX_BYTES → 413, a type outside
 * UPLOAD_ALLOWED_TYPES or not matching its name → 415).
 */
@ApiTags('uploads')
@Controller('api/upload')
export class UploadsController {
  constructor(
    private readonly uploads: UploadsService,
    private readonly links: UploadLinks,
  ) {}

  /** multipart field `file` → 200 B `data = {url: <signed link>, filename, expiresAt}`. */
  @Post()
  @HttpCode(200)
  @UseInterceptors(UploadLimitInterceptor, FileInterceptor('file'))
  @Endpoint({
    summary: 'Upload a file',
    access: 'session',
    errors: [
      { status: 400, description: 'No `file` part, or a malformed form (`VALIDATION_FAILED`)' },
      { status: 409, description: 'The stored name is taken; retry (`code`: CONFLICT)' },
      {
        status: 413,
        description:
          'Larger than UPLOAD_MAX_BYTES (`PAYLOAD_TOO_LARGE`, `limitBytes`), or past the ' +
          "user's UPLOAD_QUOTA_BYTES (`UPLOAD_QUOTA_EXCEEDED`, `quotaBytes`, `usedBytes`); " +
          'nothing is kept',
      },
      415,
      {
        status: 429,
        description:
          'More than UPLOAD_RATE_PER_HOUR uploads in an hour (`RATE_LIMITED`), see Retry-After',
      },
    ],
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadBodyDto })
  @ApiEnvelopeB(UploadDto)
  async upload(
    @CurrentUser() user: SessionUser,
    @UploadedFile() file: StoredUpload | undefined,
  ): Promise<UploadDto> {
    const upload = await this.uploads.record(user, file);
    return mapUpload(upload, this.links.link(upload.filename));
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
 * GET /uploads/{filename} (spec page route "uploaded files"), not public as the spec has it:
 * only the owner, a reader of a chat attaching the file, or a signed link; no session is
 * required, but one sent is read. Anything but an image is an attachment, always with
 * `nosniff`; a traversal, an unknown name or a file the caller may not read → the same 404,
 * and too many of those from one IP → 429.
 */
@ApiTags('uploads')
@Controller('uploads')
export class UploadFilesController {
  constructor(private readonly downloads: UploadDownloads) {}

  @Get(':filename')
  @Endpoint({
    summary: 'Download an uploaded file',
    description:
      'Served to its owner (session: bearer or cookie), to a reader of a chat whose messages ' +
      'attach it, and to anyone with a signed link (`exp` and `sig`, as in the `url` of the ' +
      'upload answer; valid UPLOAD_URL_TTL_SECONDS). Everyone else gets 404 as for an unknown ' +
      'name; UPLOAD_MISS_LIMIT_PER_MINUTE such misses a minute from one IP → 429.',
    access: 'public',
    errors: [
      {
        status: 404,
        description: 'Unknown name, or not readable by the caller (`code`: NOT_FOUND)',
      },
      {
        status: 429,
        description: 'Too many misses from this IP (`code`: RATE_LIMITED), see Retry-After',
      },
    ],
  })
  @ApiQuery({
    name: 'exp',
    required: false,
    description: 'Signed link: its expiry in Unix seconds',
    schema: { type: 'string', pattern: '^[1-9][0-9]{0,11}$', example: '1747703600' },
  })
  @ApiQuery({
    name: 'sig',
    required: false,
    description: 'Signed link: base64url HMAC-SHA256 of the name and `exp`',
    schema: { type: 'string', example: 'Vq3l0cY2x8d3kq9GmX1tQy7uJmQy2Lr0b1oVZ3c4e5A' },
  })
  @ApiOkResponse({
    description: 'The file with its sniffed type; anything but an image as an attachment',
    content: Object.fromEntries(
      UPLOAD_CONTENT_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    ),
  })
  async download(
    @CurrentUser() user: SessionUser | undefined,
    @Param('filename') filename: string,
    @Query('exp') exp: unknown,
    @Query('sig') sig: unknown,
    @Ip() ip: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const { upload, body } = await this.downloads.open(filename, { user, exp, sig, ip });
    res.set(downloadHeaders(upload));
    return new StreamableFile(body.stream, { length: body.size });
  }
}
