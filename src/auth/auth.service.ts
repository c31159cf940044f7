import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { JwtService } from '@nestjs/jwt';
import * as bcrypt from 'bcrypt';
import type { SessionTokenPayload } from '../common/auth/session-user';
import type { AppConfig } from '../config/app.config';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import type { SignupDto } from './dto/auth.dto';

/** bcrypt cost factor (2^12 rounds, about 200 ms on a 2-core machine). */
export const BCRYPT_COST = 12;

export interface IssuedToken {
  accessToken: string;
  /** Expiry, Unix seconds. */
  exp: number;
}

/** Sign-up, the credentials method and session tokens (HS256 JWT, spec Authentication 1–2). */
@Injectable()
export class AuthService {
  // Compared against when no hash exists, so unknown emails cost the same time as wrong passwords.
  private readonly dummyHash = bcrypt.hash('timing-equaliser', BCRYPT_COST);

  constructor(
    private readonly users: UsersService,
    private readonly jwt: JwtService,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /** Creates an email-and-password account. Throws AppError EMAIL_TAKEN (409). */
  async signup(dto: SignupDto): Promise<User> {
    const passwordHash = await bcrypt.hash(dto.password, BCRYPT_COST);
    return this.users.create({ email: dto.email, name: dto.name, passwordHash });
  }

  /**
   * The credentials method: the user, or null when either value is missing, the email is
   * unknown, the account has no password, or the password does not match. Every null path
   * runs one bcrypt comparison, so timing does not tell them apart.
   */
  async validateCredentials(email: unknown, password: unknown): Promise<User | null> {
    if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) {
      await bcrypt.compare('x', await this.dummyHash);
      return null;
    }
    const user = await this.users.findByEmail(email);
    const hash = user?.password ?? (await this.dummyHash);
    const ok = await bcrypt.compare(password, hash);
    if (!ok || !user?.password) return null;
    return this.users.applyAdminEmails(user);
  }

  /** Signs `{sub, role}` with AUTH_SECRET; lifetime AUTH_SESSION_MAX_AGE seconds. */
  async issueToken(user: Pick<User, 'id' | 'role'>): Promise<IssuedToken> {
    const payload: SessionTokenPayload = { sub: user.id, role: user.role };
    const accessToken = await this.jwt.signAsync(payload);
    const maxAge = this.config.get('auth', { infer: true }).sessionMaxAge;
    return { accessToken, exp: Math.floor(Date.now() / 1000) + maxAge };
  }
}
