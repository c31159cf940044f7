import type { ChatsService } from '../../chats/chats.service';
import { requireScope } from '../../common/auth/require-scope';
import type { SessionUser } from '../../common/auth/session-user';
import { AppError, CommonErrorCode } from '../../common/errors/app-error';
import type { Protocol } from '../calls/protocol';
import { toChatMessages, type UiChatDto } from './ui-chat.dto';
import { UiMessageStreamSink } from './ui-message-stream.sink';

/**
 * `POST /api/ai/chat`, the AI SDK's chat transport: always streamed as UI message chunks. The
 * client's chat id continues that chat when it is the caller's, else names the new chat.
 */
export function uiChatProtocol(chats: ChatsService, pingMs: number): Protocol<UiChatDto> {
  return {
    toCall: async (user, body) => {
      const messages = toChatMessages(body.messages);
      const existing = await isExistingChat(chats, user, body.id);
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      const { id, messages: _ui, trigger, messageId, ...parameters } = body;
      const dto = { ...parameters, messages, chatId: existing ? id : undefined };
      return { dto, options: { newChatId: body.id }, stream: true };
    },
    sink: (res, present) => new UiMessageStreamSink(res, present, pingMs),
  };
}

/**
 * Whether the client's chat id names a chat the caller continues (else a new chat gets it).
 * An id of a chat the caller cannot read is 404; to an API key without `chats:write` it is
 * INSUFFICIENT_SCOPE (403), as any existing chat is (admission checks the readable ones), so
 * the key is refused alike for every chat that exists.
 */
async function isExistingChat(
  chats: ChatsService,
  user: SessionUser,
  id: string,
): Promise<boolean> {
  try {
    return (await chats.clientChatId(user, id)) === 'existing';
  } catch (err) {
    if (err instanceof AppError && err.code === CommonErrorCode.NOT_FOUND)
      requireScope(user, 'chats:write', 'an existing chat id');
    throw err;
  }
}
