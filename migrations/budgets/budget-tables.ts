// The tables of migration Budgets (1796843500000), and the team column of holds and ledger entries.

/** CREATE and ALTER statements, in order. */
export const BUDGET_TABLES = [
  // IF NOT EXISTS: team credit pools add the same column.
  `ALTER TABLE credit_holds ADD COLUMN IF NOT EXISTS "teamId" uuid`,
  `ALTER TABLE credit_transactions ADD COLUMN IF NOT EXISTS "teamId" uuid`,
  `CREATE INDEX IF NOT EXISTS "IDX_credit_holds_team" ON credit_holds ("teamId")
     WHERE "teamId" IS NOT NULL`,
  `CREATE INDEX IF NOT EXISTS "IDX_credit_transactions_team_created"
     ON credit_transactions ("teamId", "createdAt") WHERE "teamId" IS NOT NULL`,
  // One budget per scope and owner: user (userId), team (teamId), member (teamId, userId),
  // key (keyId). `thresholds`: soft thresholds in percent of each window's limit.
  `CREATE TABLE budgets (
     id uuid NOT NULL DEFAULT gen_random_uuid(),
     scope varchar(10) NOT NULL,
     "userId" uuid REFERENCES users (id) ON DELETE CASCADE,
     "teamId" uuid REFERENCES teams (id) ON DELETE CASCADE,
     "keyId" uuid REFERENCES api_keys (id) ON DELETE CASCADE,
     timezone varchar(64) NOT NULL,
     thresholds smallint[] NOT NULL DEFAULT '{}',
     "createdAt" timestamptz(3) NOT NULL DEFAULT now(),
     "updatedAt" timestamptz(3) NOT NULL DEFAULT now(),
     CONSTRAINT "PK_budgets" PRIMARY KEY (id),
     CONSTRAINT "CHK_budgets_scope" CHECK (
       (scope = 'user' AND "userId" IS NOT NULL AND "teamId" IS NULL AND "keyId" IS NULL)
       OR (scope = 'team' AND "teamId" IS NOT NULL AND "userId" IS NULL AND "keyId" IS NULL)
       OR (scope = 'member' AND "teamId" IS NOT NULL AND "userId" IS NOT NULL AND "keyId" IS NULL)
       OR (scope = 'key' AND "keyId" IS NOT NULL AND "userId" IS NULL AND "teamId" IS NULL)),
     CONSTRAINT "CHK_budgets_thresholds" CHECK (1 <= ALL (thresholds) AND 99 >= ALL (thresholds))
   )`,
  `CREATE UNIQUE INDEX "UQ_budgets_user" ON budgets ("userId") WHERE scope = 'user'`,
  `CREATE UNIQUE INDEX "UQ_budgets_team" ON budgets ("teamId") WHERE scope = 'team'`,
  `CREATE UNIQUE INDEX "UQ_budgets_member" ON budgets ("teamId", "userId") WHERE scope = 'member'`,
  `CREATE UNIQUE INDEX "UQ_budgets_key" ON budgets ("keyId") WHERE scope = 'key'`,
  `CREATE INDEX "IDX_budgets_member_user" ON budgets ("userId") WHERE scope = 'member'`,
  `CREATE TABLE budget_windows (
     id uuid NOT NULL DEFAULT gen_random_uuid(),
     "budgetId" uuid NOT NULL REFERENCES budgets (id) ON DELETE CASCADE,
     kind varchar(5) NOT NULL,
     hours integer,
     "limit" integer NOT NULL,
     CONSTRAINT "PK_budget_windows" PRIMARY KEY (id),
     CONSTRAINT "CHK_budget_windows_kind" CHECK (kind IN ('day', 'week', 'month', 'hours', 'total')),
     CONSTRAINT "CHK_budget_windows_hours" CHECK ((kind = 'hours') = (hours IS NOT NULL)
       AND (hours IS NULL OR hours BETWEEN 1 AND 8784)),
     CONSTRAINT "CHK_budget_windows_limit" CHECK ("limit" >= 0)
   )`,
  `CREATE UNIQUE INDEX "UQ_budget_windows_kind" ON budget_windows ("budgetId", kind, COALESCE(hours, 0))`,
  // Credits used in one window from `start` (-infinity for `total`): the settlement adds each
  // charge; made mid-window from the ledger's sum.
  `CREATE TABLE budget_counters (
     "windowId" uuid NOT NULL REFERENCES budget_windows (id) ON DELETE CASCADE,
     start timestamptz NOT NULL,
     used integer NOT NULL,
     CONSTRAINT "PK_budget_counters" PRIMARY KEY ("windowId", start)
   )`,
  // A soft threshold crossed in one window: the row's insert decides the one mail;
  // `notifiedAt` is set once it is sent.
  `CREATE TABLE budget_alerts (
     "windowId" uuid NOT NULL REFERENCES budget_windows (id) ON DELETE CASCADE,
     start timestamptz NOT NULL,
     threshold smallint NOT NULL,
     "budgetId" uuid NOT NULL REFERENCES budgets (id) ON DELETE CASCADE,
     used integer NOT NULL,
     "limit" integer NOT NULL,
     "createdAt" timestamptz(3) NOT NULL DEFAULT now(),
     "notifiedAt" timestamptz(3),
     CONSTRAINT "PK_budget_alerts" PRIMARY KEY ("windowId", start, threshold)
   )`,
  `CREATE INDEX "IDX_budget_alerts_pending" ON budget_alerts ("createdAt") WHERE "notifiedAt" IS NULL`,
];
