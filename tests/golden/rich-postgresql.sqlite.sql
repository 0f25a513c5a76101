-- pre-data
CREATE TABLE "posts" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "user_id" INTEGER NOT NULL,
  "title" VARCHAR(200) NOT NULL,
  "body" TEXT,
  "created" DATETIME(3) DEFAULT CURRENT_TIMESTAMP NOT NULL,
  "rating" FLOAT4,
  "data" BLOB,
  CONSTRAINT "posts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION DEFERRABLE
);
CREATE TABLE "users" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "uid" UUID DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))) NOT NULL,
  "login" TEXT NOT NULL,
  "mood" TEXT DEFAULT 'ok',
  "tags" JSON,
  "ip" TEXT,
  "net" TEXT,
  "settings" JSON DEFAULT ('{}') NOT NULL,
  "seen_at" TIMESTAMP(6) DEFAULT CURRENT_TIMESTAMP,
  "score" NUMERIC,
  "active" BOOLEAN DEFAULT 1 NOT NULL,
  "bio" VARCHAR,
  "span" TEXT,
  "wait" TEXT,
  "login_lower" TEXT GENERATED ALWAYS AS (LOWER("login")) STORED,
  CONSTRAINT "users_login_key" UNIQUE ("login"),
  CONSTRAINT "users_login_check" CHECK (LENGTH("login") > 2),
  CONSTRAINT "users_mood_check" CHECK (("mood") IN ('ok', 'happy', 'sad')),
  CONSTRAINT "users_users_mood_check" CHECK ("mood" IN ('sad', 'ok', 'happy'))
);
-- post-data
CREATE INDEX "posts_user_created" ON "posts" ("user_id", "created" DESC);
CREATE INDEX "idx_active_login" ON "users" ("login") WHERE "active";
CREATE INDEX "idx_lower_login" ON "users" ((LOWER("login")));
CREATE VIEW "active_users" AS SELECT "users"."id", "users"."login" FROM "users" WHERE "users"."active";
DELETE FROM sqlite_sequence WHERE name = 'posts' AND seq < 6;
INSERT INTO sqlite_sequence (name, seq) SELECT 'posts', 6 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'posts');
DELETE FROM sqlite_sequence WHERE name = 'users' AND seq < 41;
INSERT INTO sqlite_sequence (name, seq) SELECT 'users', 41 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'users');

-- translation report: 20 item(s)
-- approximation: /schemas/0/enums/0: named enum type 'mood' inlined into its columns [enum-inline]
-- loss: /schemas/0/sequences/0: sequence 'ticket_seq' not created (sqlite has no sequences) [sequence-dropped]
-- approximation: /schemas/0/tables/0/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/0/columns/2/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/0/indexes/0/include: INCLUDE columns dropped [include-dropped]
-- loss: /schemas/0/tables/1/checks/2: check constraint not translated from postgresql (unsupported construct RegexpLike); dropped [expression-guard]
-- approximation: /schemas/0/tables/1/columns/3/type: ENUM kept as TEXT + CHECK (IN labels); declaration-order sorting lost [enum-check]
-- approximation: /schemas/0/tables/1/columns/4/type: array kept as a JSON array [array-json]
-- approximation: /schemas/0/tables/1/columns/5/type: network address kept as text [inet-text]
-- approximation: /schemas/0/tables/1/columns/6/type: network address kept as text [inet-text]
-- approximation: /schemas/0/tables/1/columns/8/type: timestamp with time zone kept as UTC text [timestamptz-text-utc]
-- approximation: /schemas/0/tables/1/columns/9/type: numeric values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [numeric]
-- loss: /schemas/0/tables/1/columns/12/type: range kept as its text form [range-text]
-- loss: /schemas/0/tables/1/columns/13/type: interval kept as ISO 8601 duration text [interval-text]
-- rename: /schemas/0/tables/1/columns/3/name: check constraint name 'users_mood_check' renamed to 'users_users_mood_check' [identifier-unique]
-- approximation: /schemas/0/tables/1/indexes/1/kind: gin index dropped (sqlite has no counterpart) [index-kind-dropped]
-- approximation: /schemas/0/tables/1/comment: table comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/1/columns/11/comment: column comment dropped [comment-dropped]
-- loss: /schemas/0/routines/0: function 'touch' not translated from postgresql [routine-not-translated]
-- loss: /schemas/0/triggers/0: trigger 'posts_touch' not translated from postgresql [trigger-not-translated]
