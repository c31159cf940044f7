import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ModelCatalogue } from '../../models/model-catalogue';
import { checkParameters } from '../../models/model-parameters';
import { AppError } from '../../common/errors/app-error';
import { UsersErrorCode } from '../users.errors';
import { ValidationFailedError } from '../../common/validation/validation.pipe';
import { preparedQuery } from '../../database/prepared';
import { SessionCache } from '../session-cache';
import {
  mapPreferences,
  type PreferencesDto,
  type StoredPreferences,
  toStored,
  type UpdatePreferencesDto,
} from './preferences.dto';
import { SET_PREFERENCES_SQL, STORED_PREFERENCES_SQL } from './preferences.sql';

/**
 * The preference panel: one JSONB document in `users.preferences`, null until the
 * first PUT. The stored `locale` also reaches the session user (UsersService.findSessionUser),
 * so translated errors follow it when a request names no language.
 */
@Injectable()
export class PreferencesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly catalogue: ModelCatalogue,
    private readonly sessions: SessionCache<object>,
  ) {}

  /** What user `userId` stored (null: nothing yet). One indexed row, one column. */
  async stored(userId: string): Promise<StoredPreferences | null> {
    const [row] = await preparedQuery<{ preferences: StoredPreferences | null }>(
      this.dataSource,
      STORED_PREFERENCES_SQL,
      [userId],
    );
    if (!row) throw new AppError(UsersErrorCode.USER_NOT_FOUND, 'User not found');
    return row.preferences;
  }

  /** Every field, with defaults where nothing is stored. */
  async get(userId: string): Promise<PreferencesDto> {
    return mapPreferences(await this.stored(userId));
  }

  /**
   * Replaces the stored preferences with `dto` (absent and null fields go back to their
   * defaults). Throws ValidationFailedError (400) naming `defaultModelId` when it is not a model
   * of the catalogue, or not available, and AppError UNSUPPORTED_PARAMETER (400) or
   * ValidationFailedError (naming the field) when that model does not take a preferred value.
   */
  async put(userId: string, dto: UpdatePreferencesDto): Promise<PreferencesDto> {
    const stored = toStored(dto);
    if (stored.defaultModelId !== undefined) {
      const model = this.catalogue.find(stored.defaultModelId);
      if (!model) {
        throw new ValidationFailedError([
          {
            property: 'defaultModelId',
            constraint: 'knownModel',
            message: `defaultModelId: unknown or unavailable model "${stored.defaultModelId}"`,
          },
        ]);
      }
      // The default model must take the preferred values (another model is checked when used).
      const { temperature, topP, maxTokens, systemPrompt } = stored;
      const values = { temperature, topP, maxTokens, systemPrompt };
      checkParameters(model.id, model.parameters, values, {
        temperature: 'preferences',
        topP: 'preferences',
        maxTokens: 'preferences',
        systemPrompt: 'preferences',
      });
    }
    await this.dataSource.query(SET_PREFERENCES_SQL, [userId, JSON.stringify(stored)]);
    this.sessions.forget(userId);
    return mapPreferences(stored);
  }
}
