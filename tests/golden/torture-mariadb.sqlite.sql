-- pre-data
CREATE TABLE "child" (
  "id" INT4 NOT NULL,
  "parent_id" INT4,
  "pa" INT4,
  "pb" INT4,
  PRIMARY KEY ("id"),
  CONSTRAINT "fk_child_ab" FOREIGN KEY ("pa", "pb") REFERENCES "parent" ("a", "b") ON DELETE RESTRICT ON UPDATE RESTRICT,
  CONSTRAINT "fk_child_parent" FOREIGN KEY ("parent_id") REFERENCES "parent" ("id") ON DELETE CASCADE ON UPDATE SET NULL
);
CREATE TABLE "features" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "price" DECIMAL(8,2) NOT NULL,
  "qty" INT4 DEFAULT 1 NOT NULL,
  "total" DECIMAL(10,2) GENERATED ALWAYS AS ("price" * "qty") STORED,
  "label" VARCHAR(40) GENERATED ALWAYS AS ('item-' || "qty") VIRTUAL,
  "secret" VARCHAR(10) DEFAULT 'hidden',
  "email" VARCHAR(100),
  "email_lc" VARCHAR(100) GENERATED ALWAYS AS (LOWER("email")) VIRTUAL,
  CONSTRAINT "uq_email" UNIQUE ("email"),
  CONSTRAINT "CONSTRAINT_1" CHECK ("email" LIKE '%@%'),
  CONSTRAINT "chk_qty" CHECK ("qty" < 1000),
  CONSTRAINT "price" CHECK ("price" >= 0)
);
CREATE TABLE "geo" (
  "id" INT4 NOT NULL,
  "g" BLOB,
  "p" BLOB NOT NULL,
  "ls" BLOB,
  "pg" BLOB,
  "mp" BLOB,
  "mls" BLOB,
  "mpg" BLOB,
  "gc" BLOB,
  PRIMARY KEY ("id")
);
CREATE TABLE "ints" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "t" TINYINT,
  "tu" TINYINT UNSIGNED,
  "tz" TINYINT UNSIGNED,
  "b" TINYINT DEFAULT 1,
  "s" SMALLINT DEFAULT -5,
  "su" SMALLINT UNSIGNED,
  "m" MEDIUMINT,
  "mu" MEDIUMINT UNSIGNED DEFAULT 7 NOT NULL,
  "i" INT4,
  "iu" INT4 UNSIGNED,
  "iz" INT4 UNSIGNED,
  "bi" BIGINT,
  "bu" UNSIGNED BIG INT
);
CREATE TABLE "kparts" (
  "id" INT4 NOT NULL,
  PRIMARY KEY ("id")
);
CREATE TABLE "lparts" (
  "id" INT4 NOT NULL,
  "region" CHAR(2) NOT NULL,
  PRIMARY KEY ("id", "region")
);
CREATE TABLE "memo" (
  "k" INT4 NOT NULL,
  "v" VARCHAR(10)
);
CREATE TABLE "nums" (
  "id" INTEGER NOT NULL,
  "d" DECIMAL(10,2) DEFAULT 1.50,
  "du" DECIMAL(65,30),
  "d0" DECIMAL(10,0),
  "n" DECIMAL(5,0),
  "f" FLOAT4,
  "fu" DOUBLE,
  "f24" FLOAT4,
  "f53" DOUBLE,
  "fmd" FLOAT4,
  "dbl" DOUBLE DEFAULT 2.5,
  "dblmd" DOUBLE,
  "r" DOUBLE,
  "bit1" VARCHAR(1) DEFAULT '1',
  "bit5" VARCHAR(5) DEFAULT '00101',
  "bit64" VARCHAR(64),
  CONSTRAINT "id" UNIQUE ("id"),
  CONSTRAINT "nums_du_check" CHECK ("du" >= 0),
  CONSTRAINT "nums_fu_check" CHECK ("fu" >= 0)
);
CREATE TABLE "odd name`s" (
  "co""l" INT4 NOT NULL,
  "ünï" VARCHAR(5) DEFAULT 'ä',
  PRIMARY KEY ("co""l")
);
CREATE TABLE "orders" (
  "id" BIGINT NOT NULL,
  PRIMARY KEY ("id")
);
CREATE TABLE "parent" (
  "id" INT4 NOT NULL,
  "a" INT4 NOT NULL,
  "b" INT4 NOT NULL,
  "child_id" INT4,
  PRIMARY KEY ("id"),
  CONSTRAINT "uq_ab" UNIQUE ("a", "b"),
  CONSTRAINT "fk_parent_child" FOREIGN KEY ("child_id") REFERENCES "child" ("id") ON DELETE SET NULL ON UPDATE RESTRICT
);
CREATE TABLE "parts" (
  "id" INT4 NOT NULL,
  "created" DATE NOT NULL,
  PRIMARY KEY ("id", "created")
);
CREATE TABLE "strs" (
  "id" INT4 NOT NULL,
  "c" CHAR(10) DEFAULT 'it''s',
  "c0" CHAR(0),
  "vc" VARCHAR(200) DEFAULT 'a,b',
  "vu" VARCHAR(50) DEFAULT '' NOT NULL,
  "va" VARCHAR(20),
  "nv" VARCHAR(10),
  "tt" TEXT,
  "tx" TEXT,
  "mt" TEXT,
  "lt" TEXT,
  "txd" TEXT DEFAULT 'dflt',
  "nul" VARCHAR(5),
  "num_str" VARCHAR(5) DEFAULT '42',
  "bn" BINARY(16),
  "bt" BINARY(2) DEFAULT X'6162',
  "bd" VARBINARY(4) DEFAULT X'00FF',
  "vb" VARBINARY(300),
  "tb" BLOB,
  "bl" BLOB,
  "mb" BLOB,
  "lb" BLOB,
  "e" TEXT DEFAULT 'b''q' NOT NULL,
  "st" JSON DEFAULT '["r","b"]',
  "j" JSON,
  "jd" JSON DEFAULT '{}' NOT NULL,
  "uid" UUID,
  "ip4" TEXT,
  "ip6" TEXT DEFAULT '::1',
  PRIMARY KEY ("id"),
  CONSTRAINT "uq_vu" UNIQUE ("vu"),
  CONSTRAINT "strs_e_check" CHECK ("e" IN ('a', 'b''q', 'c,d', 'x\y'))
);
CREATE TABLE "sv_explicit" (
  "id" INT4 NOT NULL,
  "rs" TIMESTAMP(6) NOT NULL,
  "re" TIMESTAMP(6) NOT NULL,
  "nv" INT4,
  PRIMARY KEY ("id", "re")
);
CREATE TABLE "times" (
  "id" INT4 NOT NULL,
  "d" DATE DEFAULT '2000-01-01',
  "dn" DATE DEFAULT CURRENT_DATE,
  "t" TIME(0),
  "t3" TIME(3) DEFAULT '12:00:00.500',
  "dt" DATETIME(0),
  "dt6" DATETIME(6) DEFAULT CURRENT_TIMESTAMP,
  "ts" TIMESTAMP(0) DEFAULT CURRENT_TIMESTAMP,
  "ts3" TIMESTAMP(3),
  "y" SMALLINT DEFAULT 2024,
  "u" CHAR(36) DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))),
  "expr_def" INT4,
  PRIMARY KEY ("id")
);
CREATE TABLE "versioned" (
  "id" INT4 NOT NULL,
  "v" VARCHAR(10),
  PRIMARY KEY ("id")
);
-- post-data
CREATE INDEX "fk_child_ab" ON "child" ("pa", "pb");
CREATE INDEX "fk_child_parent" ON "child" ("parent_id");
CREATE INDEX "ix_lc" ON "features" ("email_lc", "qty" DESC);
CREATE INDEX "ix_hash" ON "memo" ("k");
CREATE INDEX "fk_parent_child" ON "parent" ("child_id");
CREATE INDEX "ix_prefix" ON "strs" (substr("vc", 1, 10), substr("bn", 1, 4));
CREATE TRIGGER "times_dt6_on_update" AFTER UPDATE ON "times" FOR EACH ROW
WHEN NEW."dt6" IS OLD."dt6" AND (NEW."id" IS NOT OLD."id" OR NEW."d" IS NOT OLD."d" OR NEW."dn" IS NOT OLD."dn" OR NEW."t" IS NOT OLD."t" OR NEW."t3" IS NOT OLD."t3" OR NEW."dt" IS NOT OLD."dt" OR NEW."ts" IS NOT OLD."ts" OR NEW."ts3" IS NOT OLD."ts3" OR NEW."y" IS NOT OLD."y" OR NEW."u" IS NOT OLD."u" OR NEW."expr_def" IS NOT OLD."expr_def")
BEGIN UPDATE "times" SET "dt6" = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE rowid = NEW.rowid; END;
CREATE TRIGGER "times_ts3_on_update" AFTER UPDATE ON "times" FOR EACH ROW
WHEN NEW."ts3" IS OLD."ts3" AND (NEW."id" IS NOT OLD."id" OR NEW."d" IS NOT OLD."d" OR NEW."dn" IS NOT OLD."dn" OR NEW."t" IS NOT OLD."t" OR NEW."t3" IS NOT OLD."t3" OR NEW."dt" IS NOT OLD."dt" OR NEW."dt6" IS NOT OLD."dt6" OR NEW."ts" IS NOT OLD."ts" OR NEW."y" IS NOT OLD."y" OR NEW."u" IS NOT OLD."u" OR NEW."expr_def" IS NOT OLD."expr_def")
BEGIN UPDATE "times" SET "ts3" = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE rowid = NEW.rowid; END;
CREATE INDEX "ix_desc" ON "times" ("d" DESC, "t");
CREATE INDEX "ix_ignored" ON "times" ("y");
CREATE UNIQUE INDEX "uq_u_hidden" ON "times" ("u");
CREATE VIEW "v_local" ("pid", "total") AS SELECT "parent"."id" AS "pid", "parent"."a" + "parent"."b" AS "total" FROM "parent";
CREATE VIEW "v_parent" ("id", "a", "b") AS SELECT "parent"."id" AS "id", "parent"."a" AS "a", "parent"."b" AS "b" FROM "parent" WHERE "parent"."a" > 0;
CREATE VIEW "v_plain" ("id", "email") AS SELECT "f"."id" AS "id", "f"."email" AS "email" FROM "features" AS "f";
DELETE FROM sqlite_sequence WHERE name = 'features' AND seq < 42;
INSERT INTO sqlite_sequence (name, seq) SELECT 'features', 42 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'features');
DELETE FROM sqlite_sequence WHERE name = 'ints' AND seq < 999;
INSERT INTO sqlite_sequence (name, seq) SELECT 'ints', 999 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'ints');

-- translation report: 130 item(s)
-- loss: /schemas/0/sequences/0: sequence 'seq_order' not created (sqlite has no sequences) [sequence-dropped]
-- loss: /schemas/0/sequences/1: sequence 'seq_plain' not created (sqlite has no sequences) [sequence-dropped]
-- approximation: /schemas/0/tables/1/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/1/columns/1/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/1/columns/3/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/1/columns/4/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/1/columns/4/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/1/columns/5/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/1/columns/5/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/1/columns/5/invisible: invisible column made visible [invisible-dropped]
-- approximation: /schemas/0/tables/1/columns/6/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/1/columns/6/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/1/columns/7/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/1/columns/7/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- loss: /schemas/0/tables/2/columns/1/type: spatial type kept as EWKB bytes [geometry-ewkb]
-- loss: /schemas/0/tables/2/columns/2/type: spatial type kept as EWKB bytes [geometry-ewkb]
-- loss: /schemas/0/tables/2/columns/3/type: spatial type kept as EWKB bytes [geometry-ewkb]
-- loss: /schemas/0/tables/2/columns/4/type: spatial type kept as EWKB bytes [geometry-ewkb]
-- loss: /schemas/0/tables/2/columns/5/type: spatial type kept as EWKB bytes [geometry-ewkb]
-- loss: /schemas/0/tables/2/columns/6/type: spatial type kept as EWKB bytes [geometry-ewkb]
-- loss: /schemas/0/tables/2/columns/7/type: spatial type kept as EWKB bytes [geometry-ewkb]
-- loss: /schemas/0/tables/2/columns/8/type: spatial type kept as EWKB bytes [geometry-ewkb]
-- approximation: /schemas/0/tables/2/indexes/0/kind: spatial index dropped (sqlite has no counterpart) [index-kind-dropped]
-- approximation: /schemas/0/tables/3/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- loss: /schemas/0/tables/3/columns/13/type: unsigned 64-bit values above 2^63-1 are stored as REAL (inexact) [uint64]
-- approximation: /schemas/0/tables/3/comment: table comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/3/columns/0/comment: column comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/4/partitioning: partitioning not translated (the table is created unpartitioned) [partitioning-dropped]
-- approximation: /schemas/0/tables/5/columns/1/type: length not enforced [char]
-- approximation: /schemas/0/tables/5/columns/1/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/5/partitioning: partitioning not translated (the table is created unpartitioned) [partitioning-dropped]
-- approximation: /schemas/0/tables/6/columns/1/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/6/columns/1/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/6/indexes/0/kind: hash index made a btree index [index-kind-btree]
-- approximation: /schemas/0/tables/7/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- loss: /schemas/0/tables/7/columns/0/identity: identity dropped (SQLite auto-increments only an INTEGER PRIMARY KEY) [identity-dropped]
-- approximation: /schemas/0/tables/7/columns/1/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/7/columns/2/type: UNSIGNED decimal kept as DECIMAL + CHECK (>= 0); more than 15 significant digits are stored inexactly [udecimal-check]
-- approximation: /schemas/0/tables/7/columns/3/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/7/columns/4/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/0/tables/7/columns/6/type: UNSIGNED float kept as DOUBLE + CHECK (>= 0) [ufloat-check]
-- approximation: /schemas/0/tables/7/columns/13/type: bit string kept as text of 0/1 [bit-text]
-- approximation: /schemas/0/tables/7/columns/14/type: bit string kept as text of 0/1 [bit-text]
-- approximation: /schemas/0/tables/7/columns/15/type: bit string kept as text of 0/1 [bit-text]
-- approximation: /schemas/0/tables/8/columns/1/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/8/columns/1/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/8/comment: table comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/8/columns/0/comment: column comment dropped [comment-dropped]
-- loss: /schemas/0/tables/9/columns/0/default: default expression uses a sequence (sqlite has none); dropped [sequence-expression]
-- approximation: /schemas/0/tables/11/comment: table comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/11/partitioning: partitioning not translated (the table is created unpartitioned) [partitioning-dropped]
-- approximation: /schemas/0/tables/12/columns/1/type: length not enforced [char]
-- approximation: /schemas/0/tables/12/columns/1/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/2/type: length not enforced [char]
-- approximation: /schemas/0/tables/12/columns/2/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/3/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/12/columns/3/collation: collation 'latin1_bin' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/4/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/12/columns/4/collation: collation 'utf8mb4_unicode_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/5/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/12/columns/5/collation: collation 'ascii_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/6/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/12/columns/6/collation: collation 'utf8mb3_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/7/type: byte limit of the text tier not enforced [text-tier]
-- approximation: /schemas/0/tables/12/columns/7/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/8/type: byte limit of the text tier not enforced [text-tier]
-- approximation: /schemas/0/tables/12/columns/8/collation: collation 'utf8mb4_bin' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/9/type: byte limit of the text tier not enforced [text-tier]
-- approximation: /schemas/0/tables/12/columns/9/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/10/type: byte limit of the text tier not enforced [text-tier]
-- approximation: /schemas/0/tables/12/columns/10/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/11/type: byte limit of the text tier not enforced [text-tier]
-- approximation: /schemas/0/tables/12/columns/11/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/12/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/12/columns/12/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/13/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/12/columns/13/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/14/type: length not enforced [binary]
-- approximation: /schemas/0/tables/12/columns/15/type: length not enforced [binary]
-- approximation: /schemas/0/tables/12/columns/16/type: length not enforced [varbinary]
-- approximation: /schemas/0/tables/12/columns/17/type: length not enforced [varbinary]
-- approximation: /schemas/0/tables/12/columns/18/type: byte limit of the blob tier not enforced [blob-tier]
-- approximation: /schemas/0/tables/12/columns/19/type: byte limit of the blob tier not enforced [blob-tier]
-- approximation: /schemas/0/tables/12/columns/20/type: byte limit of the blob tier not enforced [blob-tier]
-- approximation: /schemas/0/tables/12/columns/21/type: byte limit of the blob tier not enforced [blob-tier]
-- approximation: /schemas/0/tables/12/columns/22/type: ENUM kept as TEXT + CHECK (IN labels); declaration-order sorting lost [enum-check]
-- approximation: /schemas/0/tables/12/columns/22/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/23/type: SET kept as a JSON array (members not checked) [set-json]
-- approximation: /schemas/0/tables/12/columns/23/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/12/columns/27/type: network address kept as text [inet-text]
-- approximation: /schemas/0/tables/12/columns/28/type: network address kept as text [inet-text]
-- approximation: /schemas/0/tables/12/indexes/0/kind: fulltext index dropped (sqlite has no counterpart) [index-kind-dropped]
-- approximation: /schemas/0/tables/12/comment: table comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/13/columns/1/type: timestamp with time zone kept as UTC text [timestamptz-text-utc]
-- approximation: /schemas/0/tables/13/columns/1/invisible: invisible column made visible [invisible-dropped]
-- approximation: /schemas/0/tables/13/columns/1/options/mysql: mysql column options dropped [foreign-option]
-- approximation: /schemas/0/tables/13/columns/2/type: timestamp with time zone kept as UTC text [timestamptz-text-utc]
-- approximation: /schemas/0/tables/13/columns/2/invisible: invisible column made visible [invisible-dropped]
-- approximation: /schemas/0/tables/13/columns/2/options/mysql: mysql column options dropped [foreign-option]
-- approximation: /schemas/0/tables/13/columns/3/options/mysql: mysql column options dropped [foreign-option]
-- approximation: /schemas/0/tables/13/options/mysql/period_for_system_time: mysql table option period_for_system_time=['rs', 're'] has no sqlite counterpart [foreign-option]
-- approximation: /schemas/0/tables/13/options/mysql/system_versioning: mysql table option system_versioning=True has no sqlite counterpart [foreign-option]
-- approximation: /schemas/0/tables/13/partitioning: partitioning not translated (the table is created unpartitioned) [partitioning-dropped]
-- approximation: /schemas/0/tables/14/columns/6/on_update: ON UPDATE CURRENT_TIMESTAMP emulated by an AFTER UPDATE trigger (UTC) [on-update-trigger]
-- approximation: /schemas/0/tables/14/columns/7/type: timestamp with time zone kept as UTC text [timestamptz-text-utc]
-- approximation: /schemas/0/tables/14/columns/8/type: timestamp with time zone kept as UTC text [timestamptz-text-utc]
-- approximation: /schemas/0/tables/14/columns/8/on_update: ON UPDATE CURRENT_TIMESTAMP emulated by an AFTER UPDATE trigger (UTC) [on-update-trigger]
-- approximation: /schemas/0/tables/14/columns/9/type: YEAR kept as SMALLINT [year-smallint]
-- approximation: /schemas/0/tables/14/columns/10/type: length not enforced [char]
-- approximation: /schemas/0/tables/14/columns/10/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- loss: /schemas/0/tables/14/columns/11/default: default expression not translated from mariadb (a default cannot refer to columns here); dropped [expression-guard]
-- approximation: /schemas/0/tables/14/indexes/1/visible: invisible index made visible [invisible-index]
-- approximation: /schemas/0/tables/14/indexes/1/comment: index comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/14/indexes/2/visible: invisible index made visible [invisible-index]
-- approximation: /schemas/0/tables/15/columns/1/type: length not enforced [varchar]
-- approximation: /schemas/0/tables/15/columns/1/collation: collation 'utf8mb4_general_ci' replaced by the target default [collation-default]
-- approximation: /schemas/0/tables/15/comment: table comment dropped [comment-dropped]
-- approximation: /schemas/0/tables/15/options/mysql/system_versioning: mysql table option system_versioning=True has no sqlite counterpart [foreign-option]
-- approximation: /schemas/0/tables/10/uniques/0/comment: constraint comment dropped [comment-dropped]
-- loss: /schemas/0/routines/0: procedure 'add_parent' not translated from mariadb [routine-not-translated]
-- loss: /schemas/0/routines/1: function 'label_of' not translated from mariadb [routine-not-translated]
-- loss: /schemas/0/routines/2: function 'twice' not translated from mariadb [routine-not-translated]
-- loss: /schemas/0/views/0/check_option: WITH CHECK OPTION dropped (SQLite views are read-only) [check-option-dropped]
-- loss: /schemas/0/views/1/check_option: WITH CHECK OPTION dropped (SQLite views are read-only) [check-option-dropped]
-- loss: /schemas/0/triggers/0: trigger 'trg_child_bi' not translated from mariadb [trigger-not-translated]
-- loss: /schemas/0/triggers/1: trigger 'trg_child_bi2' not translated from mariadb [trigger-not-translated]
-- loss: /schemas/0/triggers/2: trigger 'trg_parent_au' not translated from mariadb [trigger-not-translated]
-- loss: /schemas/0/events/0: event 'ev_cleanup' not created (sqlite has no scheduled events) [event-dropped]
-- loss: /schemas/0/events/1: event 'ev_odd' not created (sqlite has no scheduled events) [event-dropped]
-- loss: /schemas/0/events/2: event 'ev_once' not created (sqlite has no scheduled events) [event-dropped]
