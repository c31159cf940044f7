// The raw statements on `referral_codes` and `referrals`, beside the referral services.

/** How many referred users `GET /api/referrals` lists. */
const RECENT = 20;

/** `{code}`: user $1's referral code. */
export const CODE_OF_USER_SQL = 'SELECT code FROM referral_codes WHERE "userId" = $1';

/**
 * Gives user $1 code $2 unless they have one or the code is taken (then nothing happens and the
 * caller reads back or retries): one code per user, one user per code.
 */
export const INSERT_CODE_SQL = `INSERT INTO referral_codes ("userId", code) VALUES ($1, $2) ON CONFLICT DO NOTHING`;

/** `{userId}`: the owner of referral code $1. */
export const CODE_OWNER_SQL = 'SELECT "userId" FROM referral_codes WHERE code = $1';

/**
 * Records that user $1 was referred by user $2; returns `referredId`, no row when user $1 was
 * referred already (they keep their first referrer).
 */
export const INSERT_REFERRAL_SQL = `INSERT INTO referrals ("referredId", "referrerId") VALUES ($1, $2)
       ON CONFLICT DO NOTHING RETURNING "referredId"`;

/** One row when user $1 was referred. */
export const IS_REFERRED_SQL = 'SELECT 1 FROM referrals WHERE "referredId" = $1';

/** `{invited, rewarded}`: how many users referrer $1 invited, and how many rewarded them. */
export const REFERRAL_COUNTS_SQL = `SELECT count(*)::int AS invited, count(*) FILTER (WHERE status = 'rewarded')::int AS rewarded
       FROM referrals WHERE "referrerId" = $1`;

/** `{createdAt, status, name}` of the latest RECENT users referrer $1 invited, newest first. */
export const RECENT_REFERRALS_SQL = `SELECT r."createdAt", r.status, u.name FROM referrals r
         JOIN users u ON u.id = r."referredId"
         WHERE r."referrerId" = $1 ORDER BY r."createdAt" DESC LIMIT ${RECENT}`;

/**
 * `{referrerId, status, verified}` of user $1's referral (`verified`: the referred address is
 * proven), the referral row locked until the transaction ends, so one payment rewards it once.
 */
export const LOCK_REFERRAL_SQL = `SELECT r."referrerId", r.status, u."emailVerifiedAt" IS NOT NULL AS verified
       FROM referrals r JOIN users u ON u.id = r."referredId"
       WHERE r."referredId" = $1 FOR UPDATE OF r`;

/**
 * Takes the transaction-scoped advisory lock of key $1 (`referral-cap:<referrerId>`): rewards
 * of one referrer take turns, so the monthly cap cannot be passed by two at once.
 */
export const REFERRER_CAP_LOCK_SQL = 'SELECT pg_advisory_xact_lock(hashtext($1))';

/** `{n}`: referrals of referrer $1 rewarded since the start of this month (UTC). */
export const REWARDED_THIS_MONTH_SQL = `SELECT count(*)::int AS n FROM referrals WHERE "referrerId" = $1
       AND "rewardedAt" >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

/** Marks user $1's referral rewarded by payment $2 (an intent id). */
export const MARK_REWARDED_SQL = `UPDATE referrals SET status = 'rewarded', "rewardPayment" = $2, "rewardedAt" = now()
       WHERE "referredId" = $1`;

/**
 * Moves the referral rewarded by payment $1 to `reversed` and returns `{referredId, referrerId}`;
 * conditional on `rewarded`, so a reward is reversed at most once (no row afterwards).
 */
export const REVERSE_REFERRAL_SQL = `UPDATE referrals SET status = 'reversed', "reversedAt" = now()
       WHERE "rewardPayment" = $1 AND status = 'rewarded' RETURNING "referredId", "referrerId"`;
