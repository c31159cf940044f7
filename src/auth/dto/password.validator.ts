import { registerDecorator, ValidationOptions } from 'class-validator';

export const PASSWORD_MIN_BYTES = 8;
/** bcrypt ignores bytes past 72; longer passwords are rejected, never silently truncated. */
export const PASSWORD_MAX_BYTES = 72;

/** A string of 8 to 72 UTF-8 bytes. */
export function IsBcryptPassword(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isBcryptPassword',
      target: target.constructor,
      propertyName,
      options: {
        message: `password must be ${PASSWORD_MIN_BYTES} to ${PASSWORD_MAX_BYTES} bytes long`,
        ...options,
      },
      validator: {
        validate(value: unknown) {
          if (typeof value !== 'string') return false;
          const bytes = Buffer.byteLength(value, 'utf8');
          return bytes >= PASSWORD_MIN_BYTES && bytes <= PASSWORD_MAX_BYTES;
        },
      },
    });
}
