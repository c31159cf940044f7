import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  ADMIT_HOLD as PLAIN_ADMIT_HOLD,
  ADMIT_HOLDS as PLAIN_ADMIT_HOLDS,
} from './1796843400000-AdmissionRule';
import {
  RECORD_CONSUMPTION as PLAIN_RECORD_CONSUMPTION,
  SETTLE_HOLDS as PLAIN_SETTLE_HOLDS,
} from './1796843300000-SettlementRule';
import { BUDGET_FUNCTION_SIGNATURES, BUDGET_FUNCTIONS } from './budgets/budget-functions';
import { BUDGET_TABLES as TABLES } from './budgets/budget-tables';
import { editFunction, type FunctionEdit, orReplace } from './lib/function-edits';

/**
 * Budgets: caps per API key, team member, team and user over day, week, month, `hours` (session)
 * and `total` windows, checked inside the one admission statement and counted by the one
 * settlement statement (functions in ./budgets/budget-functions.ts).
 * - Tables `budgets` (one per scope and owner), `budget_windows` (one per kind and length),
 *   `budget_counters` (credits used per window and window start), `budget_alerts` (one row per
 *   soft threshold crossed per window: the mail goes once).
 * - `credit_holds` and `credit_transactions` gain `teamId` (the team whose pool pays: the team and
 *   member budgets count its holds and entries), null without a team.
 * - `admit_hold` checks the budgets (`budgets_admit`) and records the team on the hold; its answer
 *   gains `r_budget` (the refusing budget window, or null), and so does `admit_holds`, which locks
 *   the batch's budgets after its users. `record_consumption` writes the entry's team and adds the
 *   charge to the budget counters (`budgets_record`); `settle_holds` locks a batch's budgets after
 *   its users. Each hook is one line marked `-- budgets`, written as an edit of the earlier
 *   function's text (`editFunction`), so each rule stays written once. `down` restores the
 *   functions of migrations SettlementRule and AdmissionRule.
 */
export class Budgets1796843500000 implements MigrationInterface {
  name = 'Budgets1796843500000';

  public async up(q: QueryRunner): Promise<void> {
    for (const sql of TABLES) await q.query(sql);
    for (const sql of BUDGET_FUNCTIONS) await q.query(sql);
    await q.query('DROP FUNCTION admit_holds(jsonb, text, jsonb, integer, integer)');
    await q.query('DROP FUNCTION admit_hold(jsonb, text, jsonb, integer, integer)');
    await q.query(ADMIT_HOLD);
    await q.query(ADMIT_HOLDS);
    await q.query(RECORD_CONSUMPTION);
    await q.query(SETTLE_HOLDS);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION admit_holds(jsonb, text, jsonb, integer, integer)');
    await q.query('DROP FUNCTION admit_hold(jsonb, text, jsonb, integer, integer)');
    await q.query(PLAIN_ADMIT_HOLD);
    await q.query(PLAIN_ADMIT_HOLDS);
    await q.query(orReplace(PLAIN_RECORD_CONSUMPTION));
    await q.query(orReplace(PLAIN_SETTLE_HOLDS));
    for (const signature of BUDGET_FUNCTION_SIGNATURES) await q.query(`DROP FUNCTION ${signature}`);
    await q.query('DROP TABLE budget_alerts');
    await q.query('DROP TABLE budget_counters');
    await q.query('DROP TABLE budget_windows');
    await q.query('DROP TABLE budgets');
    await q.query('DROP INDEX "IDX_credit_transactions_team_created"');
    await q.query('DROP INDEX "IDX_credit_holds_team"');
    await q.query('ALTER TABLE credit_transactions DROP COLUMN "teamId"');
    await q.query('ALTER TABLE credit_holds DROP COLUMN "teamId"');
  }
}

// Each function of migrations AdmissionRule and SettlementRule with the budgets' hooks, written as
// edits of its text (one line marked `-- budgets` per hook), so the rule itself stays written once.
const edit = (fn: string, edits: readonly FunctionEdit[]) => editFunction('Budgets', fn, edits);

// admit_hold with the budgets: the team on the hold, and `budgets_admit` before the hold is made
// (its refusal answered as `r_budget`). A new answer column: dropped and created again.
export const ADMIT_HOLD = edit(PLAIN_ADMIT_HOLD, [
  [
    `OUT r_owed integer, OUT r_hold uuid)`,
    `OUT r_owed integer, OUT r_hold uuid, OUT r_budget jsonb)`,
  ],
  [
    `    v_key uuid := (p_row ->> 'keyId')::uuid;`,
    `    v_key uuid := (p_row ->> 'keyId')::uuid;
    v_team uuid := (p_row ->> 'teamId')::uuid; -- budgets`,
  ],
  [
    `    IF r_key_admits AND r_owed = 0 AND r_balance >= v_amount
`,
    `    r_budget := budgets_admit(p_row, v_now); -- budgets
    IF r_key_admits AND r_owed = 0 AND r_balance >= v_amount AND r_budget IS NULL -- budgets
`,
  ],
  [
    `      INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId")
        VALUES (v_user, v_amount, v_request, now() + make_interval(secs => p_ttl), v_key)`,
    `      INSERT INTO credit_holds ("userId", amount, "requestId", "expiresAt", "keyId", "teamId")
        VALUES (v_user, v_amount, v_request, now() + make_interval(secs => p_ttl), v_key, v_team)`,
  ],
]);

/** A batch's budgets, locked after its users (one row's and a batch's). */
const ONE_USER = `(p_rows -> 0 ->> 'userId')::uuid FOR NO KEY UPDATE;`;
const USERS = `      ORDER BY u.id FOR NO KEY UPDATE;`;
const LOCK_BUDGETS: FunctionEdit[] = [
  [ONE_USER, `${ONE_USER}\n      PERFORM budgets_lock(p_rows); -- budgets`],
  [USERS, `${USERS}\n    PERFORM budgets_lock(p_rows); -- budgets`],
];

// admit_holds, locking the batch's budgets after its users and answering `r_budget`. A new
// answer column: dropped and created again.
export const ADMIT_HOLDS = edit(PLAIN_ADMIT_HOLDS, [
  [
    `r_owed integer, r_hold uuid, r_error_code text, r_error_message text)`,
    `r_owed integer, r_hold uuid, r_error_code text, r_error_message text,
    r_budget jsonb)`,
  ],
  ...LOCK_BUDGETS,
  [
    `      r_key_admits := a.r_key_admits; r_owed := a.r_owed; r_hold := a.r_hold;
      RETURN NEXT;`,
    `      r_key_admits := a.r_key_admits; r_owed := a.r_owed; r_hold := a.r_hold;
      r_budget := a.r_budget; -- budgets
      RETURN NEXT;`,
  ],
  [
    `r_error_code := NULL; r_error_message := NULL;`,
    `r_error_code := NULL; r_error_message := NULL; r_budget := NULL;`,
  ],
  [
    `        r_key_admits := a.r_key_admits; r_owed := a.r_owed; r_hold := a.r_hold;
      EXCEPTION`,
    `        r_key_admits := a.r_key_admits; r_owed := a.r_owed; r_hold := a.r_hold;
        r_budget := a.r_budget; -- budgets
      EXCEPTION`,
  ],
]);

// record_consumption, writing the entry's team and adding the charge to the budget counters
// (`budgets_record`), with the day counters.
export const RECORD_CONSUMPTION = edit(orReplace(PLAIN_RECORD_CONSUMPTION), [
  [
    `    v_day date;
`,
    `    v_day date;
    v_team uuid; -- budgets
    v_at timestamptz; -- budgets
`,
  ],
  [`"cacheSavings", shortfall)`, `"cacheSavings", shortfall, "teamId")`],
  [
    `e."cacheSavings", e.shortfall
`,
    `e."cacheSavings", e.shortfall, e."teamId"
`,
  ],
  [
    `("createdAt" AT TIME ZONE p_tz)::date
      INTO v_user, v_key, v_charged, v_day;`,
    `("createdAt" AT TIME ZONE p_tz)::date,
        "teamId", "createdAt" -- budgets
      INTO v_user, v_key, v_charged, v_day, v_team, v_at;`,
  ],
  [
    `          DO UPDATE SET credits = daily_key_consumption.credits + EXCLUDED.credits;
      END IF;
`,
    `          DO UPDATE SET credits = daily_key_consumption.credits + EXCLUDED.credits;
      END IF;
      PERFORM budgets_record(v_user, v_team, v_key, v_charged, v_at); -- budgets
`,
  ],
]);

// settle_holds, locking the batch's budgets after its users.
export const SETTLE_HOLDS = edit(orReplace(PLAIN_SETTLE_HOLDS), LOCK_BUDGETS);
