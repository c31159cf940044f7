// The statements on `users.preferences`, beside PreferencesService.

/** `{preferences}` of user $1 (null until the first PUT); no row for an unknown user. */
export const STORED_PREFERENCES_SQL = 'SELECT preferences FROM users WHERE id = $1';

/** Replaces user $1's preferences with the document $2 (JSON text). */
export const SET_PREFERENCES_SQL = `UPDATE users SET preferences = $2::jsonb WHERE id = $1`;
