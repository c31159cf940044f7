import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import type { Request } from 'express';
import { I18nService } from 'nestjs-i18n';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { resolveLocale } from './locale';

export class MessagesDto {
  @ApiPropertyOptional({
    enum: ['en', 'zh'],
    example: 'zh',
    description: 'other values fall back to en',
  })
  @IsOptional()
  @IsString()
  @MaxLength(35)
  locale?: string;
}

/** Named apart from the chats' MessageDto: schema names are global in the document. */
class LocalizedMessageDto {
  @ApiProperty({ example: 'Operation succeeded' }) message: string;
}

/** Spec "Localized API example": `{message}` from namespace `API` key `success`. */
@ApiTags('i18n')
@Controller('api/messages')
export class MessagesController {
  constructor(private readonly i18n: I18nService) {}

  @Post()
  @HttpCode(200)
  @Endpoint({
    summary: 'A localized message (spec example)',
    access: 'public',
    database: false,
    body: { type: MessagesDto, example: { locale: 'zh' } },
  })
  @ApiOkResponse({ type: LocalizedMessageDto })
  message(@Body() _dto: MessagesDto, @Req() req: Request): LocalizedMessageDto {
    // A failure here reaches the error filter, which answers 500 with API.error translated.
    return { message: this.i18n.t('API.success', { lang: resolveLocale(req) }) };
  }
}
