import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { searchConfig } from './search.config';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EMBEDDINGS_DESCRIPTION, EmbeddingsService } from '../ai';
import { ChatExchanges } from '../chats/chat-exchanges.service';
import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { CreditsErrorCode } from '../credits/credits.errors';
import { CreditsService } from '../credits/credits.service';
import { JobsService } from '../jobs/jobs.service';
import type { NoData, QueuedJob } from '../jobs/jobs.types';
import { declareQueue } from '../jobs/queue-registry';
import { MessageVectorsRepository, type PendingMessage } from './message-vectors.repository';
import {
  BALANCES_SQL,
  BUDGET_REFUSED_SQL,
  PAUSE_SQL,
  RESUME_PAUSES_SQL,
  TRY_LOCK_CHAT_SQL,
  UNLOCK_CHAT_SQL,
} from './search-index.sql';

declare module '../jobs/jobs.types' {
  interface JobMap {
    /** Embeds one chat's pending messages. */
    'search-index': IndexJob;
    /** Queues the paused chats whose payers can pay again; scheduled every minute. */
    'search-resume': NoData;
  }
}

/** Embeds the pending messages of one chat; one job per chat and time window. */
export const INDEX_QUEUE = declareQueue('search-index');
/** Every minute: chats paused for a payer's balance are queued again once it is positive. */
export const RESUME_QUEUE = declareQueue('search-resume');
/** Messages per provider call (and per charge). */
export const INDEX_BATCH = 64;
/** Refusals of a payer's charge that pause the chat for them until a top-up or a new window. */
const PAUSE_CODES = new Set<string>([
  CreditsErrorCode.INSUFFICIENT_CREDITS,
  CreditsErrorCode.BUDGET_EXCEEDED,
]);
/** Namespace of the per-chat advisory lock (first key of pg_try_advisory_lock). */
const LOCK_NAMESPACE = 15_001;

export interface IndexJob {
  chatId: string;
}

/**
 * Asynchronous, durable indexing for semantic search, through `jobs` only. A saved
 * exchange queues its chat (no await on the request path); the job embeds the chat's messages
 * without a vector in batches and charges each batch to the messages' authors, one CONSUMPTION
 * entry "embeddings" per author in the transaction that stores the vectors. An author whose
 * balance cannot pay, or whose budget refuses the charge, is paused for that chat (no provider
 * call is made for those messages) and retried by RESUME_QUEUE while the balance is positive. Two workers never embed the same chat at once (a
 * per-chat advisory lock; the loser retries later), and a stored vector is never replaced, so
 * no message is embedded or charged twice.
 */
@Injectable()
export class SearchIndexer implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('SearchIndexer');
  private readonly delaySeconds: number;
  /** Chats this process queued in the current window (`queueSoon`). */
  private readonly queuedChats = new Set<string>();
  private queuedWindow = -1;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly vectors: MessageVectorsRepository,
    private readonly embeddings: EmbeddingsService,
    private readonly credits: CreditsService,
    private readonly jobs: JobsService,
    private readonly clock: Clock,
    exchanges: ChatExchanges,
    @Inject(searchConfig.KEY) search: ConfigType<typeof searchConfig>,
  ) {
    this.delaySeconds = search.indexDelaySeconds;
    exchanges.onMessagesSaved((chatId) => this.queueSoon(chatId));
  }

  /**
   * Registers both handlers even with semantic search off (no embeddings model, or one no
   * environment key or upstream row serves), as every declared queue needs one at boot; nothing
   * is queued then, and a job run while the model is unavailable completes without embedding
   * (the chat's next message, or `search:reindex`, queues it again).
   */
  async onModuleInit(): Promise<void> {
    await this.jobs.registerHandler(INDEX_QUEUE, (job) => this.handle(job), {
      unique: true,
      retryLimit: 8,
      retryDelaySeconds: 2,
      retryBackoff: true,
      expireInSeconds: 600,
    });
    await this.jobs.registerHandler(RESUME_QUEUE, async () => {
      if (await this.embeddings.refresh()) await this.resumePaused();
    });
  }

  /** Schedules the resume job when EMBEDDINGS_MODEL is set (it may become available later). */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.embeddings.configured || !this.jobs.started) return;
    await this.jobs.schedule(RESUME_QUEUE, '* * * * *', {});
  }

  /**
   * Queues `chatId` for indexing without blocking the caller: one job per chat and
   * SEARCH_INDEX_DELAY_SECONDS window, starting after the window ends, so every message saved in
   * the window is committed before its job reads the chat; nothing while the embeddings model is
   * unavailable (as the catalogue last learnt, no query). Failures are logged (the backfill
   * catches up).
   */
  queueSoon(chatId: string): void {
    if (!this.embeddings.model || !this.jobs.started) return;
    const windowMs = this.delaySeconds * 1000;
    const window = Math.floor(Date.now() / windowMs);
    // One job per chat and window is enough (the singleton key says so in the queue too); later
    // saves of the same window cost no round trip of their own on the reply's hot path.
    if (window !== this.queuedWindow) {
      this.queuedWindow = window;
      this.queuedChats.clear();
    }
    if (this.queuedChats.has(chatId)) return;
    this.queuedChats.add(chatId);
    this.jobs
      .enqueue(
        INDEX_QUEUE,
        { chatId },
        { singletonKey: `${chatId}:${window}`, startAfter: new Date((window + 1) * windowMs) },
      )
      .catch((err: Error) => {
        this.queuedChats.delete(chatId); // the next save of the window tries again
        this.logger.warn(`Could not queue chat ${chatId}: ${err.message}`);
      });
  }

  /** Queues every chat with a message lacking a vector (`npm run search:reindex`). */
  async backfill(): Promise<number> {
    if (!(await this.embeddings.refresh()))
      throw new Error('EMBEDDINGS_MODEL is not set, or no API key or upstream serves it');
    const chats = await this.vectors.chatsWithPending();
    for (const chatId of chats) {
      await this.jobs.enqueue(INDEX_QUEUE, { chatId }, { singletonKey: `${chatId}:backfill` });
    }
    return chats.length;
  }

  /**
   * Un-pauses the chats of authors whose balance is positive again and queues them. Returns the
   * number of chats queued.
   */
  async resumePaused(): Promise<number> {
    // TypeORM answers a DELETE … RETURNING with [rows, count].
    const [rows]: [{ chatId: string }[], number] = await this.dataSource.query(RESUME_PAUSES_SQL);
    const chats = [...new Set(rows.map((r) => r.chatId))];
    for (const chatId of chats) {
      await this.jobs.enqueue(INDEX_QUEUE, { chatId }, { singletonKey: `${chatId}:resume` });
    }
    return chats.length;
  }

  /**
   * Embeds every pending message of `chatId` whose author can pay, in batches. Returns the
   * number of messages stored. Throws when another worker holds the chat (the job retries) and
   * on provider errors (retried with backoff by the queue).
   */
  async indexChat(chatId: string, signal?: AbortSignal): Promise<number> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = await runner.query(TRY_LOCK_CHAT_SQL, [LOCK_NAMESPACE, chatId]);
      if (!locked) throw new Error(`chat ${chatId} is being indexed by another worker`);
      try {
        let stored = 0;
        for (;;) {
          const pending = await this.vectors.pending(chatId, INDEX_BATCH);
          if (pending.length === 0) break;
          const payable = await this.payable(chatId, pending);
          if (payable.length) stored += await this.embedBatch(chatId, payable, signal);
          if (pending.length < INDEX_BATCH || payable.length === 0) break;
        }
        return stored;
      } finally {
        await runner.query(UNLOCK_CHAT_SQL, [LOCK_NAMESPACE, chatId]);
      }
    } finally {
      await runner.release();
    }
  }

  private async handle(job: QueuedJob<IndexJob>): Promise<void> {
    if (await this.embeddings.refresh()) await this.indexChat(job.data.chatId, job.signal);
  }

  /**
   * The messages whose payer's balance covers the payer's share of the batch and whose budgets
   * admit it; the other payers are paused for this chat, before any provider call.
   */
  private async payable(chatId: string, pending: PendingMessage[]): Promise<PendingMessage[]> {
    const due = new Map<string, number>();
    for (const m of pending)
      due.set(m.payerId, (due.get(m.payerId) ?? 0) + this.embeddings.tokens(m.content));
    const balances: { id: string; credits: number }[] = await this.dataSource.query(BALANCES_SQL, [
      [...due.keys()],
    ]);
    const can = new Set(
      balances.filter((b) => b.credits >= this.embeddings.cost(due.get(b.id)!)).map((b) => b.id),
    );
    for (const id of await this.refusedByBudgets([...can], due)) can.delete(id);
    const paused = [...due.keys()].filter((id) => !can.has(id));
    if (paused.length) await this.pause(chatId, paused);
    return pending.filter((m) => can.has(m.payerId));
  }

  /**
   * The payers of `ids` whose budgets (their `user` budget's windows) refuse the charge of their
   * `tokens`, checked as admission checks a call; in `m`, the check holds until it commits.
   */
  private async refusedByBudgets(
    ids: string[],
    tokens: Map<string, number>,
    m = this.dataSource.manager,
  ): Promise<string[]> {
    if (ids.length === 0) return [];
    const costs = ids.map((id) => this.embeddings.cost(tokens.get(id)!));
    const at = this.clock.now();
    const rows: { id: string }[] = await m.query(BUDGET_REFUSED_SQL, [ids, costs, at]);
    return rows.map((r) => r.id);
  }

  /**
   * One provider call for the batch, then per payer one transaction: store the vectors of the
   * messages that still exist and consume ceil(Σ tokens × price × 1000) credits with one ledger
   * entry. A payer whose balance fell or budget filled meanwhile is rolled back and paused.
   */
  private async embedBatch(
    chatId: string,
    batch: PendingMessage[],
    signal?: AbortSignal,
  ): Promise<number> {
    // The configured model: availability may change while the batch is embedded.
    const model = this.embeddings.configured!;
    const vectors = await this.embeddings.embedDocuments(
      batch.map((m) => m.content),
      signal,
    );
    const byPayer = new Map<string, { message: PendingMessage; vector: number[] }[]>();
    batch.forEach((message, i) => {
      const list = byPayer.get(message.payerId) ?? [];
      list.push({ message, vector: vectors[i] });
      byPayer.set(message.payerId, list);
    });
    let stored = 0;
    for (const [payerId, items] of byPayer) {
      try {
        stored += await this.dataSource.transaction(async (m) => {
          const ids = new Set(
            await this.vectors.store(
              m,
              model.id,
              items.map((it) => ({ messageId: it.message.id, vector: it.vector })),
            ),
          );
          const tokens = items
            .filter((it) => ids.has(it.message.id))
            .reduce((n, it) => n + this.embeddings.tokens(it.message.content), 0);
          if (tokens > 0) {
            const cost = new Map([[payerId, tokens]]);
            if ((await this.refusedByBudgets([payerId], cost, m)).length)
              throw new AppError(CreditsErrorCode.BUDGET_EXCEEDED, 'A budget refuses the charge');
            await this.credits.consume(
              payerId,
              this.embeddings.cost(tokens),
              EMBEDDINGS_DESCRIPTION,
              m,
            );
          }
          return ids.size;
        });
      } catch (err) {
        if (!(err instanceof AppError && PAUSE_CODES.has(err.code))) throw err;
        await this.pause(chatId, [payerId]);
      }
    }
    return stored;
  }

  private async pause(chatId: string, userIds: string[]): Promise<void> {
    await this.dataSource.query(PAUSE_SQL, [userIds, chatId]);
  }
}
