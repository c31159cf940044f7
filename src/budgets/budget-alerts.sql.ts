/**
 * Claims up to $1 soft-threshold rows not yet notified (budget_alerts, written by the settlement's
 * `budgets_record` once per window and threshold), oldest first, and marks them notified: the
 * mail goes once even with several instances (SKIP LOCKED). Each row: the budget's scope and
 * owner ids, the window kind, threshold, used and limit, and `recipients` (JSON list of
 * {email, proven, name, locale}): the user of a user budget, the key's owner for a key budget,
 * the team's OWNERs and ADMINs for team and member budgets (and the member for a member budget).
 */
export const CLAIM_ALERTS_SQL = `WITH claimed AS (
    UPDATE budget_alerts a SET "notifiedAt" = now()
    WHERE ("windowId", start, threshold) IN (SELECT "windowId", start, threshold
      FROM budget_alerts WHERE "notifiedAt" IS NULL ORDER BY "createdAt" LIMIT $1
      FOR UPDATE SKIP LOCKED)
    RETURNING a.*)
  SELECT c."budgetId", c.threshold, c.used, c."limit", c.start, w.kind AS window, b.scope,
    b."userId", b."teamId", b."keyId",
    (SELECT COALESCE(jsonb_agg(jsonb_build_object('id', u.id, 'email', u.email,
        'proven', u."emailVerifiedAt" IS NOT NULL, 'name', u.name,
        'locale', u.preferences ->> 'locale')), '[]'::jsonb)
      FROM users u WHERE u.id IN (
        SELECT b."userId" WHERE b.scope IN ('user', 'member')
        UNION SELECT k."userId" FROM api_keys k WHERE b.scope = 'key' AND k.id = b."keyId"
        UNION SELECT m."userId" FROM team_members m
          WHERE b.scope IN ('team', 'member') AND m."teamId" = b."teamId"
            AND m.role IN ('OWNER', 'ADMIN'))) AS recipients
  FROM claimed c JOIN budget_windows w ON w.id = c."windowId" JOIN budgets b ON b.id = c."budgetId"`;
