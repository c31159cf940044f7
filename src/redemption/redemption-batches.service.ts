import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import type { SessionUser } from '../common/auth/session-user';
import { Clock } from '../common/clock/clock';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import { decodeCursor, pageSize, toPage } from '../common/pagination/pagination';
import { returning } from '../credits/sql';
import type { CreateRedemptionBatchDto } from './dto/redemption-batch.dto';
import { hashRedemptionCode, newRedemptionCode, normaliseRedemptionCode } from './redemption-code';
import { RedemptionErrorCode } from './redemption.errors';
import type { BatchRow } from './redemption.types';
import {
  BATCH_EXISTS_SQL,
  BATCH_SQL,
  DISABLE_BATCH_SQL,
  INSERT_BATCH_SQL,
  INSERT_CODES_SQL,
  listBatchesStatement,
  TAKE_SEALED_CODES_SQL,
} from './redemption.sql';

/** The sealing context of a batch's codes: a sealed list copied to another batch does not open. */
const sealContext = (batchId: string) => `redemption-batch:${batchId}`;

/**
 * Batches of redemption codes for administrators: made, listed with their counts, exported once,
 * disabled. A code exists in clear only in the creating request and, sealed with ENCRYPTION_KEY,
 * in its batch's row until the one export takes it out; the table of codes holds their SHA-256
 * alone. Every change is audited in its transaction.
 */
@Injectable()
export class RedemptionBatchesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  /**
   * Makes a batch of `dto.quantity` new codes, each worth `dto.credits` per use. Throws
   * VALIDATION_FAILED (400) when `expiresAt` is not in the future.
   */
  async create(admin: SessionUser, dto: CreateRedemptionBatchDto): Promise<BatchRow> {
    const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= this.clock.now().getTime())
      throw new AppError(CommonErrorCode.VALIDATION_FAILED, 'expiresAt must be in the future');
    const id = randomUUID();
    const codes = Array.from({ length: dto.quantity }, newRedemptionCode);
    const hashes = codes.map((c) => hashRedemptionCode(normaliseRedemptionCode(c)!));
    const sealed = this.box.seal(codes.join('\n'), sealContext(id));
    return this.dataSource.transaction(async (m) => {
      const usesPerCode = dto.usesPerCode ?? 1;
      const onePerUser = dto.onePerUser ?? true;
      await m.query(INSERT_BATCH_SQL, [
        id,
        dto.name,
        dto.credits,
        dto.quantity,
        usesPerCode,
        onePerUser,
        expiresAt,
        sealed,
        admin.id,
      ]);
      await m.query(INSERT_CODES_SQL, [id, hashes]);
      await this.audit.record(m, {
        action: 'redemption.batch.create',
        targetType: 'redemption_batch',
        targetId: id,
        details: { name: dto.name, credits: dto.credits, quantity: dto.quantity, usesPerCode },
      });
      const [row] = await m.query(BATCH_SQL, [id]);
      return row as BatchRow;
    });
  }

  /** Batches with their counts, newest first, keyset-paginated. */
  async list(
    limit?: number,
    cursor?: string,
  ): Promise<{ data: BatchRow[]; nextCursor: string | null }> {
    const size = pageSize(limit);
    const { sql, params } = listBatchesStatement(
      size + 1,
      cursor ? decodeCursor(cursor) : undefined,
    );
    const rows: BatchRow[] = await this.dataSource.query(sql, params);
    return toPage(rows, size, (b) => b.createdAt);
  }

  /** One batch with its counts. Throws NOT_FOUND (404). */
  async get(id: string): Promise<BatchRow> {
    const [row] = await this.dataSource.query(BATCH_SQL, [id]);
    if (!row) throw batchNotFound();
    return row as BatchRow;
  }

  /**
   * The batch's codes as CSV (`code,credits,expiresAt`, one row per code), once: the export
   * takes the sealed codes out of the batch in the same transaction as its audit row, so a
   * second export (even a concurrent one) finds none. Throws NOT_FOUND (404), or
   * CODES_ALREADY_EXPORTED (410) after the first export.
   */
  async exportCsv(id: string): Promise<string> {
    return this.dataSource.transaction(async (m) => {
      const now = this.clock.now();
      const rows = await returning<{ sealedCodes: string }>(m, TAKE_SEALED_CODES_SQL, [id, now]);
      if (!rows.length) {
        const [exists] = await m.query(BATCH_EXISTS_SQL, [id]);
        if (!exists) throw batchNotFound();
        throw new AppError(
          RedemptionErrorCode.CODES_ALREADY_EXPORTED,
          "This batch's codes were exported already; they are shown only once",
        );
      }
      const [batch] = (await m.query(BATCH_SQL, [id])) as BatchRow[];
      const codes = this.box.open(rows[0].sealedCodes, sealContext(id)).split('\n');
      await this.audit.record(m, {
        action: 'redemption.batch.export',
        targetType: 'redemption_batch',
        targetId: id,
        details: { codes: codes.length },
      });
      const expires = batch.expiresAt?.toISOString() ?? '';
      return ['code,credits,expiresAt', ...codes.map((c) => `${c},${batch.credits},${expires}`)]
        .join('\r\n')
        .concat('\r\n');
    });
  }

  /**
   * Disables the batch: none of its codes redeems from now on (a disabled batch stays
   * disabled; a second call changes nothing but answers the same). Throws NOT_FOUND (404).
   */
  async disable(id: string): Promise<BatchRow> {
    return this.dataSource.transaction(async (m) => {
      const changed = await returning(m, DISABLE_BATCH_SQL, [id, this.clock.now()]);
      if (changed.length)
        await this.audit.record(m, {
          action: 'redemption.batch.disable',
          targetType: 'redemption_batch',
          targetId: id,
        });
      const [row] = (await m.query(BATCH_SQL, [id])) as BatchRow[];
      if (!row) throw batchNotFound();
      return row;
    });
  }
}

function batchNotFound(): AppError {
  return new AppError(CommonErrorCode.NOT_FOUND, 'No such redemption batch');
}
