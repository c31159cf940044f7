/**
 * SQL condition on `a` (message_attachments), `m` (its message) and `u` (its upload): the
 * message's author owns the upload. Only such attachments open the file to a chat's readers
 * and are shown in chat reads.
 */
export const OWNER_ATTACHED = `m."userId" = u."userId"`;
