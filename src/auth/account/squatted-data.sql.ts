// What whoever squatted an unproven address planted in the account, cleared when its proven owner
// takes it back. These rows belong to chats, tasks and teams; the statements live here because
// the takeover is the one caller, and they run in its transaction. Credits and the ledger are
// never touched: the balance and its entries stay as they are.

/**
 * Deletes user $1's chats (their messages, shares, tags, bookmarks, vectors and stored
 * responses go by cascade); returns one row per chat.
 */
export const DELETE_CHATS_SQL = `DELETE FROM chats WHERE "userId" = $1 RETURNING id`;

/** Deletes user $1's scheduled tasks (their runs go by cascade); returns one row per task. */
export const DELETE_TASKS_SQL = `DELETE FROM tasks WHERE "userId" = $1 RETURNING id`;

/**
 * Ends user $1's team memberships; returns one row per team left. A team whose owner this was
 * gets its next member as owner, and one left empty is deleted (the team_members trigger).
 */
export const DELETE_MEMBERSHIPS_SQL = `DELETE FROM team_members WHERE "userId" = $1 RETURNING "teamId"`;
