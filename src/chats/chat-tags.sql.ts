// The tags of a chat as its reader sees them (tags are private), beside ChatsService.

/** `{id, name, color}` of the tags user $2 put on chat $1, by name: never another user's tags. */
export const CHAT_TAGS_OF_USER_SQL = `SELECT t.id, t.name, t.color FROM chat_tags ct JOIN tags t ON t.id = ct."tagId"
       WHERE ct."chatId" = $1 AND t."userId" = $2 ORDER BY lower(t.name), t.id`;
