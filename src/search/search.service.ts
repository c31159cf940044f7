import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EmbeddingsService } from '../ai';
import { AppError } from '../common/errors/app-error';
import { SearchErrorCode } from './search.errors';
import { ValidationFailedError } from '../common/validation/validation.pipe';
import { CJK_RUNS } from './cjk';
import { DEFAULT_SEARCH_LIMIT, type SearchMode, type SearchResultDto } from './dto/search.dto';
import { DETAILS_SQL, KEYWORD_SQL } from './keyword-search.sql';
import { MessageVectorsRepository } from './message-vectors.repository';
import { reciprocalRankFusion } from './rrf';
import { buildSnippet } from './snippet';

/** What `search` takes (GET /api/search, and the `search_my_chats` plugin). */
export interface SearchRequest {
  q: string;
  mode?: SearchMode;
  limit?: number;
  cursor?: string;
}

export interface SearchPage {
  data: SearchResultDto[];
  nextCursor: string | null;
}

/** Results reachable by paging: fusion ranks this many candidates of each list at most. */
export const MAX_SEARCH_DEPTH = 200;
/** Candidates each list brings to hybrid fusion, at least. */
const FUSION_CANDIDATES = 50;

interface DetailRow {
  id: string;
  role: SearchResultDto['message']['role'];
  createdAt: Date;
  chatId: string;
  title: string;
  text: string;
  headline: string | null;
}

/**
 * Chat search: keyword (PostgreSQL full text, English stems + CJK bigrams), semantic
 * (embeddings, exact cosine) and hybrid (reciprocal rank fusion, k = 60) over the messages of
 * every chat the user can read: their own and their teams' shared chats, checked in each
 * statement. docs/search.md.
 */
@Injectable()
export class SearchService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly vectors: MessageVectorsRepository,
    private readonly embeddings: EmbeddingsService,
  ) {}

  /**
   * True when the configured embeddings model is available now (its provider's key, or an
   * upstream row serving it): `semantic` works and `hybrid` fuses.
   */
  async semanticAvailable(): Promise<boolean> {
    return (await this.embeddings.refresh()) !== undefined;
  }

  /**
   * One page of results for `userId`, best first. `hybrid` (default) fuses keyword and semantic
   * results, or is keyword alone without an embeddings model. A semantic or hybrid search embeds
   * the query, metered through a hold (`apiKeyId`: the key the request came through). Throws
   * SEMANTIC_SEARCH_UNAVAILABLE (400), VALIDATION_FAILED (400, bad cursor), and, in `semantic`
   * mode, the admission and provider errors of EmbeddingsService.embedQuery; `hybrid` answers
   * with its keyword results alone when the query cannot be embedded.
   */
  async search(userId: string, req: SearchRequest, apiKeyId?: string): Promise<SearchPage> {
    const mode = req.mode ?? 'hybrid';
    const limit = req.limit ?? DEFAULT_SEARCH_LIMIT;
    const offset = req.cursor ? decodeOffset(req.cursor) : 0;
    const semanticAvailable = mode !== 'keyword' && (await this.semanticAvailable());
    if (mode === 'semantic' && !semanticAvailable) {
      throw new AppError(
        SearchErrorCode.SEMANTIC_SEARCH_UNAVAILABLE,
        'Semantic search is not available: no embeddings model is configured, or no API key or upstream serves it',
      );
    }
    const depth = Math.min(offset + limit + 1, MAX_SEARCH_DEPTH);
    if (offset >= depth) return { data: [], nextCursor: null };
    const useKeyword = mode !== 'semantic';
    const useSemantic = semanticAvailable;
    const candidates = useKeyword && useSemantic ? Math.max(depth, FUSION_CANDIDATES) : depth;
    const [keyword, semantic] = await Promise.all([
      useKeyword ? this.keyword(userId, req.q, candidates) : [],
      useSemantic
        ? this.semantic(userId, req.q, candidates, apiKeyId).catch((err: unknown) => {
            // Hybrid still answers with its keyword half when the query cannot be embedded: a
            // refused admission (no credits, a daily limit) or the embeddings provider failing.
            if (mode === 'hybrid' && err instanceof AppError) return [];
            throw err;
          })
        : [],
    ]);
    const ranked =
      useKeyword && useSemantic
        ? reciprocalRankFusion([keyword.map((r) => r.id), semantic.map((r) => r.id)])
        : useKeyword
          ? keyword
          : semantic;
    const page = ranked.slice(offset, offset + limit);
    const end = offset + limit;
    const nextCursor = ranked.length > end && end < MAX_SEARCH_DEPTH ? encodeOffset(end) : null;
    return { data: await this.details(userId, page, req.q), nextCursor };
  }

  private keyword(
    userId: string,
    q: string,
    rows: number,
  ): Promise<{ id: string; score: number }[]> {
    return this.dataSource.query(KEYWORD_SQL, [userId, q, rows]);
  }

  /** Nearest messages with a positive cosine (an unrelated message scores about 0). */
  private async semantic(
    userId: string,
    q: string,
    rows: number,
    apiKeyId?: string,
  ): Promise<{ id: string; score: number }[]> {
    const vector = await this.embeddings.embedQuery(userId, q, apiKeyId);
    // The configured model embedded the query (availability may have changed since).
    const model = this.embeddings.configured!.id;
    const nearest = await this.vectors.nearest(userId, model, vector, rows);
    return nearest.filter((r) => r.score > 0);
  }

  /** The page's messages with chat, snippet and highlights, in rank order (access re-checked). */
  private async details(
    userId: string,
    page: { id: string; score: number }[],
    q: string,
  ): Promise<SearchResultDto[]> {
    if (page.length === 0) return [];
    const english = q.replace(CJK_RUNS, ' ');
    const rows: DetailRow[] = await this.dataSource.query(DETAILS_SQL, [
      userId,
      page.map((p) => p.id),
      english,
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return page.flatMap(({ id, score }) => {
      const row = byId.get(id);
      if (!row) return []; // deleted, or access lost, since the ranking statement
      const { snippet, highlights } = buildSnippet(row.text, row.headline, q);
      return [
        {
          chat: { id: row.chatId, title: row.title },
          message: { id: row.id, role: row.role, createdAt: new Date(row.createdAt).toISOString() },
          snippet,
          highlights,
          score,
        },
      ];
    });
  }
}

/** Cursors are opaque: the offset of the next page in the ranked list. */
function encodeOffset(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

function decodeOffset(cursor: string): number {
  try {
    const { o } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o: unknown };
    if (typeof o === 'number' && Number.isInteger(o) && o >= 0 && o < MAX_SEARCH_DEPTH) return o;
  } catch {
    // fall through
  }
  throw new ValidationFailedError([
    { property: 'cursor', constraint: 'isCursor', message: 'cursor: not a search cursor' },
  ]);
}
