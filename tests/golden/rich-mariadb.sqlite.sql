-- pre-data
CREATE TABLE "customers" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "email" VARCHAR(191) NOT NULL,
  "name" VARCHAR(100),
  "status" TEXT DEFAULT 'active' NOT NULL,
  "tags" JSON,
  "is_vip" BOOLEAN DEFAULT 0 NOT NULL,
  "balance" DECIMAL(12,2) DEFAULT 0.00,
  "created_at" TIMESTAMP(0) DEFAULT CURRENT_TIMESTAMP NOT NULL,
  "updated_at" DATETIME(3) DEFAULT CURRENT_TIMESTAMP,
  "profile" JSON,
  "big_counter" UNSIGNED BIG INT DEFAULT 0 NOT NULL,
  "birth_year" SMALLINT,
  "notes" TEXT,
  "referrer_id" INTEGER,
  "full_name" VARCHAR(250) GENERATED ALWAYS AS ("name" || ' <' || "email" || '>') VIRTUAL,
  CONSTRAINT "uq_email" UNIQUE ("email"),
  CONSTRAINT "customers_chk_balance" CHECK ("balance" >= -(1000)),
  CONSTRAINT "customers_status_check" CHECK ("status" IN ('active', 'blocked', 'it''s')),
  CONSTRAINT "fk_customers_referrer" FOREIGN KEY ("referrer_id") REFERENCES "customers" ("id") ON DELETE SET NULL ON UPDATE NO ACTION
);
CREATE TABLE "order_items" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "order_id" INTEGER NOT NULL,
  "qty" SMALLINT UNSIGNED DEFAULT 1 NOT NULL,
  "price" DECIMAL(10,2) NOT NULL,
  "amount" DECIMAL(12,2) GENERATED ALWAYS AS (("qty" * "price")) STORED,
  CONSTRAINT "order_items_chk_1" CHECK ("qty" > 0),
  CONSTRAINT "order_items_chk_price" CHECK ("price" >= 0),
  CONSTRAINT "fk_items_order" FOREIGN KEY ("order_id") REFERENCES "orders" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
);
CREATE TABLE "a_table_with_a_really_long_name_that_goes_past_the_postgres_limi" (
  "id" INT4 NOT NULL,
  "v" VARCHAR(10),
  PRIMARY KEY ("id")
);
CREATE TABLE "orders" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "customer_id" INTEGER NOT NULL,
  "total" DECIMAL(10,2) NOT NULL,
  "ordered_on" DATE DEFAULT CURRENT_DATE,
  "ref" CHAR(36) DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))),
  "flags" VARCHAR(3) DEFAULT 'b''101''',
  "weight" DOUBLE,
  "payload" BLOB,
  "last_item_id" INTEGER,
  CONSTRAINT "fk_orders_customer" FOREIGN KEY ("customer_id") REFERENCES "customers" ("id") ON DELETE CASCADE ON UPDATE RESTRICT,
  CONSTRAINT "fk_orders_last_item" FOREIGN KEY ("last_item_id") REFERENCES "order_items" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION
);
-- post-data
CREATE TRIGGER "customers_updated_at_on_update" AFTER UPDATE ON "customers" FOR EACH ROW
WHEN NEW."updated_at" IS OLD."updated_at" AND (NEW."id" IS NOT OLD."id" OR NEW."email" IS NOT OLD."email" OR NEW."name" IS NOT OLD."name" OR NEW."status" IS NOT OLD."status" OR NEW."tags" IS NOT OLD."tags" OR NEW."is_vip" IS NOT OLD."is_vip" OR NEW."balance" IS NOT OLD."balance" OR NEW."created_at" IS NOT OLD."created_at" OR NEW."profile" IS NOT OLD."profile" OR NEW."big_counter" IS NOT OLD."big_counter" OR NEW."birth_year" IS NOT OLD."birth_year" OR NEW."notes" IS NOT OLD."notes" OR NEW."referrer_id" IS NOT OLD."referrer_id")
BEGIN UPDATE "customers" SET "updated_at" = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE rowid = NEW.rowid; END;
CREATE INDEX "idx_name" ON "customers" (substr("name", 1, 20));
CREATE INDEX "idx_created" ON "customers" ("created_at" DESC);
CREATE INDEX "a_table_with_a_really_long_name_that_goes_past_the_postgres_limi_idx_name" ON "a_table_with_a_really_long_name_that_goes_past_the_postgres_limi" ("v");
CREATE INDEX "orders_idx_name" ON "orders" ("customer_id", "ordered_on");
CREATE VIEW "vip_customers" AS SELECT "customers"."id" AS "id", "customers"."email" AS "email" FROM "customers" WHERE ("customers"."is_vip" = 1);
CREATE VIEW "order_totals" AS SELECT "o"."customer_id" AS "customer_id", SUM("o"."total") AS "total" FROM "orders" AS "o" GROUP BY "o"."customer_id";
DELETE FROM sqlite_sequence WHERE name = 'customers' AND seq < 1000;
INSERT INTO sqlite_sequence (name, seq) SELECT 'customers', 1000 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'customers');
DELETE FROM sqlite_sequence WHERE name = 'orders' AND seq < 4999;
INSERT INTO sqlite_sequence (name, seq) SELECT 'orders', 4999 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'orders');

-- translation report: 43 item(s)
-- approximation: /schemas/0/tables/0/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/0/columns/1/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/0/columns/1/collation: collation 'utf8mb4_uca1400_ai_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/0/columns/2/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/0/columns/2/collation: collation 'utf8mb4_uca1400_ai_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/0/columns/3/type: ENUM kept as TEXT + CHECK (IN labels); declaration-order sorting lost [enum-check]
-- approximation: /schemas/0/tables/0/columns/3/collation: collation 'utf8mb4_uca1400_ai_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/0/columns/4/type: SET kept as a JSON array (members not checked) [set-json]
-- approximation: /schemas/0/tables/0/columns/4/collation: collation 'utf8mb4_uca1400_ai_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/0/columns/6/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/0/columns/7/type: timestamp with time zone kept as UTC text [timestamptz-text-utc]
-- approximation: /schemas/0/tables/0/columns/8/on_update: ON UPDATE CURRENT_TIMESTAMP emulated by an AFTER UPDATE trigger (UTC) [on-update-trigger]
-- loss: /schemas/0/tables/0/columns/10/type: unsigned 64-bit values above 2^63-1 are stored as REAL (inexact) [uint64]
-- approximation: /schemas/0/tables/0/columns/11/type: YEAR kept as SMALLINT [year-smallint]
-- approximation: /schemas/0/tables/0/columns/12/type: byte limit of the text tier not enforced [text-tier]
-- approximation: /schemas/0/tables/0/columns/12/collation: collation 'utf8mb4_uca1400_ai_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/0/columns/13/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/0/columns/14/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/0/columns/14/collation: collation 'utf8mb4_uca1400_ai_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/0/indexes/1/kind: fulltext index dropped (sqlite has no counterpart) [index-kind-dropped]
-- approximation: /schemas/0/tables/0/indexes/2/comment: index comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/0/comment: table comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/0/columns/2/comment: column comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/1/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/1/columns/1/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/1/columns/3/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/1/columns/4/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/2/columns/1/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/2/columns/1/collation: collation 'utf8mb4_uca1400_ai_ci' replaced by the target default [collation-default]
-- rename: /schemas/0/tables/2/indexes/0/name: index name 'idx_name' renamed to 'a_table_with_a_really_long_name_that_goes_past_the_postgres_limi_idx_name' [identifier-unique]
-- approximation: /schemas/0/tables/3/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/3/columns/1/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/3/columns/2/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/3/columns/4/type: length not enforced [char]
-- approximation: /schemas/0/tables/3/columns/4/collation: collation 'utf8mb4_uca1400_ai_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/3/columns/5/type: bit string kept as text of 0/1 [bit-text]
-- approximation: /schemas/0/tables/3/columns/7/type: byte limit of the blob tier not enforced [blob-tier]
-- approximation: /schemas/0/tables/3/columns/8/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- rename: /schemas/0/tables/3/indexes/0/name: index name 'idx_name' renamed to 'orders_idx_name' [identifier-unique]
-- loss: /schemas/0/routines/0: function 'add_one' not translated from mariadb [routine-not-translated]
-- loss: /schemas/0/views/2/definition: view definition not translated from mariadb (function unix_timestamp() is not known to translate); dropped [expression-guard]
-- loss: /schemas/0/views/2: view 'weird' not created [view-dropped]
-- loss: /schemas/0/triggers/0: trigger 'orders_bi' not translated from mariadb [trigger-not-translated]
