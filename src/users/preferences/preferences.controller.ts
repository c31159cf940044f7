import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../../common/auth/auth.decorators';
import type { SessionUser } from '../../common/auth/session-user';
import { Endpoint } from '../../common/openapi/endpoint.decorator';
import { PreferencesDto, UpdatePreferencesDto } from './preferences.dto';
import { PreferencesService } from './preferences.service';

/** The preference panel, envelope C: the preferences object itself. */
@ApiTags('users')
@Controller('api/user/preferences')
export class PreferencesController {
  constructor(private readonly preferences: PreferencesService) {}

  @Get()
  @Endpoint({ summary: 'Read my preferences (defaults where unset)', access: 'session' })
  @ApiOkResponse({ type: PreferencesDto })
  get(@CurrentUser() user: SessionUser): Promise<PreferencesDto> {
    return this.preferences.get(user.id);
  }

  @Put()
  @Endpoint({
    summary: 'Replace my preferences',
    description:
      'Every field is optional; a field left out (or null) goes back to its default. ' +
      'An unknown `defaultModelId` or a value out of range is 400 naming the field.',
    access: 'session',
    body: {
      type: UpdatePreferencesDto,
      example: {
        locale: 'zh',
        theme: 'dark',
        defaultModelId: 'gpt-4o-mini',
        temperature: 0.4,
        maxTokens: 600,
        systemPrompt: 'Answer briefly, in plain words.',
        streamFormat: 'sse',
      },
    },
  })
  @ApiOkResponse({ type: PreferencesDto, description: 'what is now in effect' })
  put(
    @CurrentUser() user: SessionUser,
    @Body() dto: UpdatePreferencesDto,
  ): Promise<PreferencesDto> {
    return this.preferences.put(user.id, dto);
  }
}
