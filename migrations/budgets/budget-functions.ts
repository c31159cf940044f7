// The budget rules in PostgreSQL, created by migration Budgets (1796843500000). The admission
// (`admit_hold`) and the settlement (`record_consumption`, `settle_holds`) call them, so budgets
// ride in the one admission and the one settlement statement of every metered call.
//
// A budget (table `budgets`) of one scope: `key` (an API key), `member` (a user inside a team's
// pool), `team` (the pool), `user`. The budgets of a call: its key's, then (with a team) the
// member's and the team's, then its user's. Each has windows (`budget_windows`): `day`, `week`
// (ISO, Monday), `month` in the budget's time zone, `hours` (a session of N hours opened by the
// first charge while none is open), `total` (no reset). Usage per (window, window start) is a
// counter row (`budget_counters`) kept by the settlement; a counter made mid-window starts at the
// ledger's sum over the window (cold start). Held credits are read from the open holds.

/** Names of the functions, for `down`, most dependent first. */
export const BUDGET_FUNCTION_SIGNATURES = [
  'budgets_lock(jsonb)',
  'budgets_admit(jsonb, timestamptz)',
  'budgets_record(uuid, uuid, uuid, integer, timestamptz)',
  'budget_peek(uuid, timestamptz)',
  'budget_usage(uuid, timestamptz, boolean)',
  'budget_held(text, uuid, uuid, uuid)',
  'budget_ledger_sum(text, uuid, uuid, uuid, timestamptz, timestamptz)',
  'budgets_of(uuid, uuid, uuid)',
  'budget_window_end(text, text, timestamptz, integer)',
  'budget_window_start(text, text, timestamptz)',
];

// The calendar window containing `p_at`: its local start in `p_tz` (date_trunc of the local time:
// `week` is ISO, Monday); `total` starts at -infinity. Its end is one local day, week or month
// later, so a day is 23 or 25 hours across a DST change; `hours` ends N hours after its start.
const WINDOW_START = `CREATE FUNCTION budget_window_start(p_kind text, p_tz text, p_at timestamptz)
  RETURNS timestamptz LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN p_kind = 'total' THEN '-infinity'::timestamptz
      ELSE date_trunc(p_kind, p_at AT TIME ZONE p_tz) AT TIME ZONE p_tz END $$`;

const WINDOW_END = `CREATE FUNCTION budget_window_end(p_kind text, p_tz text, p_start timestamptz,
    p_hours integer)
  RETURNS timestamptz LANGUAGE sql STABLE AS $$
    SELECT CASE p_kind WHEN 'total' THEN 'infinity'::timestamptz
      WHEN 'hours' THEN p_start + make_interval(hours => p_hours)
      ELSE ((p_start AT TIME ZONE p_tz) + ('1 ' || p_kind)::interval) AT TIME ZONE p_tz END $$`;

// The budgets that apply to a call of user `p_user`, through key `p_key` (or null), paid by team
// `p_team` (or null: no team or member budget applies), with `rank`: key 1, member 2, team 3,
// user 4 (the order in which they are checked).
const BUDGETS_OF = `CREATE FUNCTION budgets_of(p_user uuid, p_team uuid, p_key uuid)
  RETURNS TABLE (id uuid, scope varchar, "userId" uuid, "teamId" uuid, "keyId" uuid,
    timezone varchar, rank integer)
  LANGUAGE sql STABLE AS $$
    SELECT b.id, b.scope, b."userId", b."teamId", b."keyId", b.timezone, 1 FROM budgets b
      WHERE b."keyId" = p_key AND b.scope = 'key'
    UNION ALL SELECT b.id, b.scope, b."userId", b."teamId", b."keyId", b.timezone, 2 FROM budgets b
      WHERE b."teamId" = p_team AND b."userId" = p_user AND b.scope = 'member'
    UNION ALL SELECT b.id, b.scope, b."userId", b."teamId", b."keyId", b.timezone, 3 FROM budgets b
      WHERE b."teamId" = p_team AND b.scope = 'team'
    UNION ALL SELECT b.id, b.scope, b."userId", b."teamId", b."keyId", b.timezone, 4 FROM budgets b
      WHERE b."userId" = p_user AND b.scope = 'user' $$`;

// Σ |CONSUMPTION| of the ledger for a scope's owner over [p_from, p_to): the cold start of a
// counter. One indexed range per scope (user, key, team by "createdAt").
export const LEDGER_SUM = `CREATE FUNCTION budget_ledger_sum(p_scope text, p_user uuid, p_team uuid,
    p_key uuid, p_from timestamptz, p_to timestamptz)
  RETURNS integer LANGUAGE plpgsql STABLE AS $$
  BEGIN
    IF p_scope = 'key' THEN
      RETURN (SELECT COALESCE(-SUM(t.amount), 0) FROM credit_transactions t WHERE t."keyId" = p_key
        AND t.type = 'CONSUMPTION' AND t."createdAt" >= p_from AND t."createdAt" < p_to);
    ELSIF p_scope = 'user' THEN
      RETURN (SELECT COALESCE(-SUM(t.amount), 0) FROM credit_transactions t WHERE t."userId" = p_user
        AND t.type = 'CONSUMPTION' AND t."createdAt" >= p_from AND t."createdAt" < p_to);
    END IF;
    RETURN (SELECT COALESCE(-SUM(t.amount), 0) FROM credit_transactions t WHERE t."teamId" = p_team
      AND (p_scope = 'team' OR t."userId" = p_user)
      AND t.type = 'CONSUMPTION' AND t."createdAt" >= p_from AND t."createdAt" < p_to);
  END $$`;

// Credits held now (open holds) against a scope's budgets.
export const HELD = `CREATE FUNCTION budget_held(p_scope text, p_user uuid, p_team uuid, p_key uuid)
  RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    IF p_scope = 'key' THEN
      RETURN (SELECT COALESCE(SUM(h.amount), 0) FROM credit_holds h WHERE h."keyId" = p_key);
    ELSIF p_scope = 'user' THEN
      RETURN (SELECT COALESCE(SUM(h.amount), 0) FROM credit_holds h WHERE h."userId" = p_user);
    END IF;
    RETURN (SELECT COALESCE(SUM(h.amount), 0) FROM credit_holds h WHERE h."teamId" = p_team
      AND (p_scope = 'team' OR h."userId" = p_user));
  END $$`;

// The counter of window `p_window` at `p_at`: its start, end and credits used. A calendar or
// total window's counter is made when missing, at the ledger's sum over the window (cold start).
// An `hours` window is the session open at `p_at` (its latest counter, if it has not ended);
// with none open, `p_open` opens one at `p_at` (a charge), else the answer is start null, used 0.
// `r_made`: this call made the counter (from the ledger as it is now).
const USAGE = `CREATE FUNCTION budget_usage(p_window uuid, p_at timestamptz, p_open boolean,
    OUT r_start timestamptz, OUT r_end timestamptz, OUT r_used integer, OUT r_made boolean)
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    w record;
  BEGIN
    SELECT bw.kind, bw.hours, b.scope, b."userId", b."teamId", b."keyId", b.timezone INTO w
      FROM budget_windows bw JOIN budgets b ON b.id = bw."budgetId" WHERE bw.id = p_window;
    r_made := false;
    IF w.kind = 'hours' THEN
      SELECT c.start, c.used INTO r_start, r_used FROM budget_counters c
        WHERE c."windowId" = p_window AND c.start <= p_at ORDER BY c.start DESC LIMIT 1;
      IF FOUND AND r_start + make_interval(hours => w.hours) > p_at THEN
        r_end := r_start + make_interval(hours => w.hours);
        RETURN;
      END IF;
      r_start := NULL; r_end := NULL; r_used := 0;
      IF NOT p_open THEN
        RETURN;
      END IF;
      r_start := p_at;
    ELSE
      r_start := budget_window_start(w.kind, w.timezone, p_at);
    END IF;
    r_end := budget_window_end(w.kind, w.timezone, r_start, w.hours);
    SELECT c.used INTO r_used FROM budget_counters c
      WHERE c."windowId" = p_window AND c.start = r_start;
    IF NOT FOUND THEN
      INSERT INTO budget_counters ("windowId", start, used)
        VALUES (p_window, r_start, budget_ledger_sum(w.scope, w."userId", w."teamId", w."keyId",
          r_start, r_end))
        ON CONFLICT ("windowId", start) DO NOTHING
        RETURNING used INTO r_used;
      r_made := FOUND;
      IF NOT r_made THEN
        SELECT c.used INTO r_used FROM budget_counters c
          WHERE c."windowId" = p_window AND c.start = r_start;
      END IF;
    END IF;
  END $$`;

// What `budget_usage` would answer at `p_at` without writing (for the "what is left" reads): a
// missing calendar counter is the ledger's sum; an `hours` window with no session open has start
// null and used 0.
const PEEK = `CREATE FUNCTION budget_peek(p_window uuid, p_at timestamptz,
    OUT r_start timestamptz, OUT r_end timestamptz, OUT r_used integer)
  LANGUAGE plpgsql STABLE AS $$
  DECLARE
    w record;
  BEGIN
    SELECT bw.kind, bw.hours, b.scope, b."userId", b."teamId", b."keyId", b.timezone INTO w
      FROM budget_windows bw JOIN budgets b ON b.id = bw."budgetId" WHERE bw.id = p_window;
    IF w.kind = 'hours' THEN
      SELECT c.start, c.used INTO r_start, r_used FROM budget_counters c
        WHERE c."windowId" = p_window AND c.start <= p_at ORDER BY c.start DESC LIMIT 1;
      IF FOUND AND r_start + make_interval(hours => w.hours) > p_at THEN
        r_end := r_start + make_interval(hours => w.hours);
      ELSE
        r_start := NULL; r_end := NULL; r_used := 0;
      END IF;
      RETURN;
    END IF;
    r_start := budget_window_start(w.kind, w.timezone, p_at);
    r_end := budget_window_end(w.kind, w.timezone, r_start, w.hours);
    SELECT c.used INTO r_used FROM budget_counters c
      WHERE c."windowId" = p_window AND c.start = r_start;
    IF NOT FOUND THEN
      r_used := budget_ledger_sum(w.scope, w."userId", w."teamId", w."keyId", r_start, r_end);
    END IF;
  END $$`;

// Locks the budgets of a batch of admission or settlement rows (`userId`, `teamId`, `keyId`) in
// id order (FOR NO KEY UPDATE), after the user rows: the admissions and settlements of one budget
// take turns, and two batches never wait on each other in a cycle.
const LOCK = `CREATE FUNCTION budgets_lock(p_rows jsonb) RETURNS void
  LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    PERFORM 1 FROM budgets b WHERE b.id IN (SELECT a.id FROM jsonb_array_elements(p_rows) j,
        budgets_of((j ->> 'userId')::uuid, (j ->> 'teamId')::uuid, (j ->> 'keyId')::uuid) a)
      ORDER BY b.id FOR NO KEY UPDATE;
  END $$`;

// The admission of one row (`userId`, `teamId`, `keyId`, `amount`) at `p_now`, its budgets
// locked: every window of every budget that applies, in order (key, member, team, user; within
// one, hours, day, week, month, total), must keep used + held + amount ≤ limit. Returns null when
// all do, else the first that would be exceeded: {scope, scopeId, teamId, budgetId, window,
// hours, limit, used, held, resetsAt} (resetsAt null for `total`). The hold, made by the caller,
// then counts as held against each until it settles.
const ADMIT = `CREATE FUNCTION budgets_admit(p_row jsonb, p_now timestamptz) RETURNS jsonb
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    v_user uuid := (p_row ->> 'userId')::uuid;
    v_team uuid := (p_row ->> 'teamId')::uuid;
    v_key uuid := (p_row ->> 'keyId')::uuid;
    v_amount integer := (p_row ->> 'amount')::integer;
    v_budget uuid;
    v_held integer;
    w record;
    u record;
  BEGIN
    PERFORM budgets_lock(jsonb_build_array(p_row));
    FOR w IN SELECT a.*, bw.id AS window_id, bw.kind, bw.hours, bw."limit"
        FROM budgets_of(v_user, v_team, v_key) a JOIN budget_windows bw ON bw."budgetId" = a.id
        ORDER BY a.rank, array_position(ARRAY['hours','day','week','month','total'], bw.kind::text),
          bw.hours
    LOOP
      IF v_budget IS DISTINCT FROM w.id THEN
        v_budget := w.id;
        v_held := budget_held(w.scope, w."userId", w."teamId", w."keyId");
      END IF;
      u := budget_usage(w.window_id, p_now, false);
      IF u.r_used + v_held + v_amount > w."limit" THEN
        RETURN jsonb_build_object('scope', w.scope, 'budgetId', w.id,
          'scopeId', COALESCE(w."keyId", CASE WHEN w.scope = 'team' THEN w."teamId" END, w."userId"),
          'teamId', w."teamId", 'window', w.kind, 'hours', w.hours, 'limit', w."limit",
          'used', u.r_used, 'held', v_held, 'resetsAt', CASE WHEN w.kind = 'hours'
            THEN COALESCE(u.r_end, p_now + make_interval(hours => w.hours)) ELSE
            NULLIF(u.r_end, 'infinity'::timestamptz) END);
      END IF;
    END LOOP;
    RETURN NULL;
  END $$`;

// The settlement's part: a charge of `p_charged` credits (> 0) at `p_at` (the entry's createdAt)
// by user `p_user`, through key `p_key`, paid by team `p_team`, is added to the counter of every
// window of every budget that applies (a counter made now starts at the ledger's sum, which holds
// the entry already; an `hours` window with no session open opens one at `p_at`). Then each
// soft threshold the counter crossed gets its row in budget_alerts, once per window: the first
// of parallel charges to insert it wins, the others find it taken.
const RECORD = `CREATE FUNCTION budgets_record(p_user uuid, p_team uuid, p_key uuid,
    p_charged integer, p_at timestamptz) RETURNS void
  LANGUAGE plpgsql VOLATILE AS $$
  DECLARE
    w record;
    u record;
  BEGIN
    PERFORM budgets_lock(jsonb_build_array(jsonb_build_object('userId', p_user, 'teamId', p_team,
      'keyId', p_key)));
    FOR w IN SELECT a.*, bw.id AS window_id, bw."limit", b.thresholds
        FROM budgets_of(p_user, p_team, p_key) a JOIN budget_windows bw ON bw."budgetId" = a.id
        JOIN budgets b ON b.id = a.id ORDER BY a.id, bw.id
    LOOP
      u := budget_usage(w.window_id, p_at, true);
      -- A counter made now holds the entry (the ledger's sum); one found does not yet.
      IF NOT u.r_made THEN
        UPDATE budget_counters c SET used = c.used + p_charged
          WHERE c."windowId" = w.window_id AND c.start = u.r_start
          RETURNING c.used INTO u.r_used;
      END IF;
      INSERT INTO budget_alerts ("budgetId", "windowId", start, threshold, used, "limit")
        SELECT w.id, w.window_id, u.r_start, t, u.r_used, w."limit" FROM unnest(w.thresholds) t
        WHERE u.r_used * 100 >= t * w."limit" AND w."limit" > 0
        ON CONFLICT ("windowId", start, threshold) DO NOTHING;
    END LOOP;
  END $$`;

/** CREATE statements, in dependency order. */
export const BUDGET_FUNCTIONS = [
  WINDOW_START,
  WINDOW_END,
  BUDGETS_OF,
  LEDGER_SUM,
  HELD,
  USAGE,
  PEEK,
  LOCK,
  ADMIT,
  RECORD,
];
