import type { SessionUser } from '../../common/auth/session-user';
import type { StoredPreferences } from '../../users/preferences/preferences.dto';
import type { PreferencesService } from '../../users/preferences/preferences.service';
import type { GenerateDto } from '../dto/generate.dto';
import type { Protocol, ProtocolCall } from './protocol';
import { ownApiResult, SseStreamSink, TextStreamSink } from './stream-sinks';

/** `POST /api/ai/generate`: the whole reply as GenerateResultDto. */
export const GENERATE_PROTOCOL: Protocol<GenerateDto> = {
  toCall: (_user, dto) => ({ dto, options: {}, stream: false }),
  toReply: (reply) => ownApiResult(reply),
};

/** A `/api/ai/stream` call: SSE or plain text. */
interface OwnStreamCall extends ProtocolCall {
  sse: boolean;
}

/**
 * `POST /api/ai/stream`: an Accept header naming a format decides; otherwise the preferred
 * `streamFormat`. Those preferences are handed to admission, which would read them anyway: no
 * extra query. SSE pings every `pingMs` until the first token.
 */
export function streamProtocol(
  preferences: PreferencesService,
  pingMs: number,
): Protocol<GenerateDto, OwnStreamCall> {
  return {
    toCall: async (user: SessionUser, dto, req) => {
      const accept = req.headers.accept ?? '';
      let sse = accept.includes('text/event-stream');
      let stored: StoredPreferences | null | undefined;
      if (!sse && !accept.includes('text/plain')) {
        stored =
          user.preferences !== undefined ? user.preferences : await preferences.stored(user.id);
        sse = stored?.streamFormat === 'sse';
      }
      return { dto, options: { preferences: stored }, stream: true, sse };
    },
    sink: (res, present, call) =>
      call.sse ? new SseStreamSink(res, present, pingMs) : new TextStreamSink(res, present),
  };
}
