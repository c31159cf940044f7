/** Secret used by test apps; tests sign their own tokens with it (and with others). */
export const TEST_AUTH_SECRET = 'test-secret-0123456789-0123456789-abcdef';
/** ENCRYPTION_KEY of test apps (32 bytes, base64). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
