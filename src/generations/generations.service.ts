import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SessionUser } from '../common/auth/session-user';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import {
  generationDtoOf,
  type GenerationPageDto,
  type GenerationQueryDto,
  type GenerationRow,
} from './dto/generation.dto';
import { GENERATION_OF_CALLER_SQL, generationPageStatement } from './generations.sql';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A wire answer's id carrying the generation id: `chatcmpl-<32 hex>` or `msg_<32 hex>`. */
const WIRE_ID =
  /^(?:chatcmpl-|msg_)([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/i;

/** The generation id of `id`: a UUID as is, a wire answer's id (WIRE_ID) as its UUID; else null. */
function generationIdOf(id: string): string | null {
  if (UUID.test(id)) return id;
  const wire = WIRE_ID.exec(id);
  return wire ? wire.slice(1).join('-') : null;
}

/**
 * Reading generation records (one per model call, written by the settlement): one by id for its
 * caller, pages for a user or, for admins, across users.
 */
@Injectable()
export class GenerationsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The generation `id` (or a `/v1` answer's id that carries it, `chatcmpl-…`, `msg_…`) when it is the caller's: through an API key, only that key's calls;
   * else only the user's own. Anything else (another's, unknown, not a UUID) is NOT_FOUND (404).
   */
  async ofCaller(user: SessionUser, wireId: string): Promise<GenerationRow> {
    const id = generationIdOf(wireId);
    if (!id) throw notFound();
    const [row] = await this.dataSource.query<GenerationRow[]>(GENERATION_OF_CALLER_SQL, [
      id,
      user.apiKey?.id ?? null,
      user.id,
    ]);
    if (!row) throw notFound();
    return row;
  }

  /**
   * A page of generations, newest first, filtered by `q`. A user sees only their own (through an
   * API key, only that key's); `userId` naming another user needs the admin role (FORBIDDEN).
   * Admins see every user's unless `userId` narrows it.
   */
  async page(user: SessionUser, q: GenerationQueryDto): Promise<GenerationPageDto> {
    const admin = user.role === 'ADMIN' && !user.apiKey;
    if (!admin && q.userId && q.userId !== user.id)
      throw new AppError(
        CommonErrorCode.FORBIDDEN,
        "Only admins may read another user's generations",
      );
    const size = pageSize(q.limit);
    const statement = generationPageStatement({
      userId: admin ? q.userId : user.id,
      keyId: user.apiKey?.id ?? q.keyId,
      model: q.model,
      upstream: q.upstream,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      after: q.cursor ? decodeCursor(q.cursor) : undefined,
      limit: size + 1,
    });
    const rows = await this.dataSource.query<GenerationRow[]>(statement.sql, statement.params);
    const page = toPage(rows, size, (g) => new Date(g.createdAt));
    return { data: page.data.map(generationDtoOf), nextCursor: page.nextCursor };
  }
}

function notFound(): AppError {
  return new AppError(CommonErrorCode.NOT_FOUND, 'Generation not found');
}
