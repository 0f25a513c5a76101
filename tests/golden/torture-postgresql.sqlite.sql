-- pre-data
CREATE TABLE "inventory_stock" (
  "warehouse_code" CHAR(4) NOT NULL,
  "store_id" INTEGER NOT NULL,
  "quantity" INT4 DEFAULT 0 NOT NULL,
  PRIMARY KEY ("warehouse_code", "store_id"),
  CONSTRAINT "stock_store_fk" FOREIGN KEY ("store_id") REFERENCES "store" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION,
  CONSTRAINT "stock_warehouse_code_fkey" FOREIGN KEY ("warehouse_code") REFERENCES "inventory_warehouse" ("code") ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE "inventory_warehouse" (
  "code" CHAR(4) NOT NULL,
  "name" TEXT NOT NULL,
  PRIMARY KEY ("code")
);
CREATE TABLE "all_types" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "c_smallint" SMALLINT,
  "c_integer" INT4 DEFAULT 42,
  "c_bigint" BIGINT DEFAULT -1,
  "c_numeric" NUMERIC,
  "c_numeric_ps" DECIMAL(12,3) DEFAULT 1.5,
  "c_real" FLOAT4,
  "c_double" DOUBLE,
  "c_char" CHAR(3),
  "c_varchar" VARCHAR(50) DEFAULT 'it''s',
  "c_varchar_unbounded" VARCHAR,
  "c_text" TEXT DEFAULT 'abc',
  "c_bytea" BLOB,
  "c_bit" VARCHAR(8) DEFAULT '10101010',
  "c_varbit" VARCHAR(16),
  "c_varbit_unbounded" VARCHAR,
  "c_date" DATE DEFAULT CURRENT_DATE,
  "c_time" TIME(6),
  "c_time3" TIME(3),
  "c_timetz" TIME(6),
  "c_timestamp" DATETIME(6) DEFAULT CURRENT_TIMESTAMP,
  "c_timestamp0" DATETIME(0),
  "c_timestamptz" TIMESTAMP(6) DEFAULT CURRENT_TIMESTAMP,
  "c_timestamptz3" TIMESTAMP(3) DEFAULT CURRENT_TIMESTAMP,
  "c_interval" TEXT,
  "c_interval_ds" TEXT,
  "c_interval_ym" TEXT,
  "c_boolean" BOOLEAN DEFAULT 1 NOT NULL,
  "c_json" JSON,
  "c_jsonb" JSON DEFAULT '{}',
  "c_uuid" UUID DEFAULT (lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))),
  "c_inet" TEXT,
  "c_cidr" TEXT,
  "c_macaddr" TEXT,
  "c_macaddr8" TEXT,
  "c_money" DECIMAL(19,2),
  "c_xml" XML,
  "c_tsvector" TEXT,
  "c_point" TEXT,
  "c_polygon" TEXT,
  "c_int_array" JSON,
  "c_text_array" JSON DEFAULT '[]',
  "c_numeric_array" JSON,
  "c_matrix" JSON,
  "c_timestamptz_array" JSON,
  "c_int4range" TEXT,
  "c_int8range" TEXT,
  "c_numrange" TEXT,
  "c_tsrange" TEXT,
  "c_tstzrange" TEXT,
  "c_daterange" TEXT,
  "c_int4multirange" TEXT,
  "c_datemultirange" TEXT,
  "c_mood" TEXT DEFAULT 'ok',
  "c_mood_array" JSON,
  "c_zip" VARCHAR(10) NOT NULL,
  "c_address" TEXT,
  "c_expr_default" TEXT DEFAULT ('a' || 'b'),
  "c_total" NUMERIC GENERATED ALWAYS AS ("c_numeric_ps" * (2)) STORED,
  "c_floatrange" TEXT,
  "c_floatmultirange" TEXT,
  "c_ci" TEXT,
  CONSTRAINT "all_types_c_mood_check" CHECK ("c_mood" IN ('sad', 'ok', 'happy'))
);
CREATE TABLE "booking" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "during" TEXT NOT NULL
);
CREATE TABLE "cities" (
  "name" TEXT NOT NULL,
  "population" INT4,
  CONSTRAINT "cities_name_check" CHECK ("name" <> ''),
  CONSTRAINT "cities_population_check" CHECK ("population" >= 0)
);
CREATE TABLE "capitals" (
  "name" TEXT NOT NULL,
  "population" INT4,
  "country" CHAR(2) NOT NULL
);
CREATE TABLE "customer" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "store_id" INTEGER,
  "email" TEXT NOT NULL,
  "phone" TEXT,
  "mood" TEXT DEFAULT 'happy' NOT NULL,
  "zip" VARCHAR(10) NOT NULL,
  CONSTRAINT "customer_email_key" UNIQUE ("email"),
  CONSTRAINT "customer_email_phone_key" UNIQUE ("email", "phone"),
  CONSTRAINT "customer_mood_check" CHECK ("mood" IN ('sad', 'ok', 'happy')),
  CONSTRAINT "customer_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "store" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION
);
CREATE TABLE "measurement" (
  "id" BIGINT NOT NULL,
  "logdate" DATE NOT NULL,
  "peak" INT4,
  PRIMARY KEY ("id", "logdate")
);
CREATE TABLE "measurement_2023" (
  "id" BIGINT NOT NULL,
  "logdate" DATE NOT NULL,
  "peak" INT4
);
CREATE TABLE "measurement_2024" (
  "id" BIGINT NOT NULL,
  "logdate" DATE NOT NULL,
  "peak" INT4
);
CREATE TABLE "measurement_other" (
  "id" BIGINT NOT NULL,
  "logdate" DATE NOT NULL,
  "peak" INT4
);
CREATE TABLE "scratch" (
  "k" TEXT NOT NULL,
  "v" BLOB,
  PRIMARY KEY ("k")
);
CREATE TABLE "staff" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "store_id" INTEGER NOT NULL,
  "name" TEXT NOT NULL,
  "email" TEXT,
  "active" BOOLEAN DEFAULT 1 NOT NULL,
  "salary" DECIMAL(10,2),
  CONSTRAINT "staff_salary_check" CHECK ("salary" > 0),
  CONSTRAINT "staff_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "store" ("id") ON DELETE CASCADE ON UPDATE RESTRICT
);
CREATE TABLE "store" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
  "name" VARCHAR(100) NOT NULL,
  "manager_id" INTEGER,
  "warehouse_code" CHAR(4),
  CONSTRAINT "store_manager_fk" FOREIGN KEY ("manager_id") REFERENCES "staff" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT "store_warehouse_fk" FOREIGN KEY ("warehouse_code") REFERENCES "inventory_warehouse" ("code") ON DELETE SET NULL ON UPDATE NO ACTION
);
-- post-data
CREATE INDEX "all_types_text_collate" ON "all_types" ("c_varchar" DESC, "c_integer");
CREATE INDEX "all_types_uuid_hash" ON "all_types" ("c_uuid");
CREATE INDEX "measurement_peak" ON "measurement" ("peak");
CREATE INDEX "staff_active_partial" ON "staff" ("store_id") WHERE "active";
CREATE UNIQUE INDEX "staff_email_lower" ON "staff" ((LOWER("email")));
CREATE INDEX "staff_store_include" ON "staff" ("store_id");
CREATE UNIQUE INDEX "store_name_warehouse" ON "store" ("name", "warehouse_code");
CREATE VIEW "low_stock" ("warehouse_code", "store_id", "quantity") AS SELECT "stock"."warehouse_code", "stock"."store_id", "stock"."quantity" FROM "inventory_stock" AS "stock" WHERE "stock"."quantity" < 5;
CREATE VIEW "active_staff" ("id", "store_id", "name") AS SELECT "staff"."id", "staff"."store_id", "staff"."name" FROM "staff" WHERE "staff"."active";
CREATE VIEW "big_stores" ("id", "name", "manager_id") AS SELECT "store"."id", "store"."name", "store"."manager_id" FROM "store" WHERE "store"."id" > 10;
CREATE VIEW "local_staff" ("id", "store_id", "name") AS SELECT "active_staff"."id", "active_staff"."store_id", "active_staff"."name" FROM "active_staff" WHERE "active_staff"."store_id" = 1;
CREATE VIEW "store_headcount" ("store_id", "headcount") AS SELECT "s"."id" AS "store_id", COUNT("f"."id") AS "headcount" FROM "store" AS "s" LEFT JOIN "staff" AS "f" ON "f"."store_id" = "s"."id" GROUP BY "s"."id";
DELETE FROM sqlite_sequence WHERE name = 'all_types' AND seq < 99;
INSERT INTO sqlite_sequence (name, seq) SELECT 'all_types', 99 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'all_types');
DELETE FROM sqlite_sequence WHERE name = 'booking' AND seq < 0;
INSERT INTO sqlite_sequence (name, seq) SELECT 'booking', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'booking');
DELETE FROM sqlite_sequence WHERE name = 'customer' AND seq < 41;
INSERT INTO sqlite_sequence (name, seq) SELECT 'customer', 41 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'customer');
DELETE FROM sqlite_sequence WHERE name = 'staff' AND seq < 0;
INSERT INTO sqlite_sequence (name, seq) SELECT 'staff', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'staff');
DELETE FROM sqlite_sequence WHERE name = 'store' AND seq < 0;
INSERT INTO sqlite_sequence (name, seq) SELECT 'store', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'store');

-- translation report: 123 item(s)
-- rename: /schemas/0/tables/0/name: table of schema 'inventory' renamed to 'inventory_stock' (sqlite gets one schema) [schema-prefix]
-- rename: /schemas/0/tables/1/name: table of schema 'inventory' renamed to 'inventory_warehouse' (sqlite gets one schema) [schema-prefix]
-- approximation: /schemas/0/enums/0: named enum type 'status' inlined into its columns [enum-inline]
-- approximation: /schemas/0/tables/0/columns/0/type: length not enforced [char]
-- approximation: /schemas/0/tables/0/columns/1/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/0/tables/1/columns/0/type: length not enforced [char]
-- approximation: /schemas/0/tables/1/options/postgresql/replica_identity: postgresql table option replica_identity='index' has no sqlite counterpart [foreign-option]
-- approximation: /schemas/0/tables/1/options/postgresql/replica_identity_index: postgresql table option replica_identity_index='warehouse_pkey' has no sqlite counterpart [foreign-option]
-- approximation: /schemas/1/enums/0: named enum type 'mood' inlined into its columns [enum-inline]
-- approximation: /schemas/1/domains/0: domain 'us_postal_code' not created: its columns get its base type, NOT NULL and checks [domain-inlined]
-- loss: /schemas/1/composites/0: composite type 'address' not created [composite-dropped]
-- loss: /schemas/1/options/postgresql/collations: postgresql collations not created [schema-objects-dropped]
-- loss: /schemas/1/options/postgresql/range_types: postgresql range types not created [schema-objects-dropped]
-- loss: /schemas/1/sequences/0: sequence 'invoice_no' not created (sqlite has no sequences) [sequence-dropped]
-- loss: /schemas/1/sequences/1: sequence 'staff_badge_seq' not created (sqlite has no sequences) [sequence-dropped]
-- approximation: /schemas/1/tables/0/checks/0/enforced: NOT ENFORCED check dropped [check-not-enforced-dropped]
-- approximation: /schemas/1/tables/0/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/1/tables/0/columns/4/type: numeric values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [numeric]
-- approximation: /schemas/1/tables/0/columns/5/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/1/tables/0/columns/8/type: length not enforced [char]
-- approximation: /schemas/1/tables/0/columns/9/type: length not enforced [varchar]
-- approximation: /schemas/1/tables/0/columns/11/collation: collation 'C' replaced by the target default [collation-default]
-- approximation: /schemas/1/tables/0/columns/13/type: bit string kept as text of 0/1 [bit-text]
-- approximation: /schemas/1/tables/0/columns/14/type: bit string kept as text of 0/1 [bit-text]
-- approximation: /schemas/1/tables/0/columns/15/type: bit string kept as text of 0/1 [bit-text]
-- loss: /schemas/1/tables/0/columns/19/type: time zone offset of time with time zone [timetz-time]
-- approximation: /schemas/1/tables/0/columns/22/type: timestamp with time zone kept as UTC text [timestamptz-text-utc]
-- approximation: /schemas/1/tables/0/columns/23/type: timestamp with time zone kept as UTC text [timestamptz-text-utc]
-- loss: /schemas/1/tables/0/columns/24/type: interval kept as ISO 8601 duration text [interval-text]
-- loss: /schemas/1/tables/0/columns/25/type: interval kept as ISO 8601 duration text [interval-text]
-- loss: /schemas/1/tables/0/columns/26/type: interval kept as ISO 8601 duration text [interval-text]
-- approximation: /schemas/1/tables/0/columns/31/type: network address kept as text [inet-text]
-- approximation: /schemas/1/tables/0/columns/32/type: network address kept as text [inet-text]
-- approximation: /schemas/1/tables/0/columns/33/type: MAC address kept as text [macaddr-text]
-- approximation: /schemas/1/tables/0/columns/34/type: MAC address kept as text [macaddr-text]
-- approximation: /schemas/1/tables/0/columns/35/type: money kept as DECIMAL(19,2) [money-decimal]
-- loss: /schemas/1/tables/0/columns/37/type: engine-specific type kept as its text form [opaque-text]
-- loss: /schemas/1/tables/0/columns/38/type: engine-specific type kept as its text form [opaque-text]
-- loss: /schemas/1/tables/0/columns/39/type: engine-specific type kept as its text form [opaque-text]
-- approximation: /schemas/1/tables/0/columns/40/type: array kept as a JSON array [array-json]
-- approximation: /schemas/1/tables/0/columns/41/type: array kept as a JSON array [array-json]
-- approximation: /schemas/1/tables/0/columns/42/type: array kept as a JSON array [array-json]
-- approximation: /schemas/1/tables/0/columns/43/type: array kept as a JSON array [array-json]
-- approximation: /schemas/1/tables/0/columns/44/type: array kept as a JSON array [array-json]
-- loss: /schemas/1/tables/0/columns/45/type: range kept as its text form [range-text]
-- loss: /schemas/1/tables/0/columns/46/type: range kept as its text form [range-text]
-- loss: /schemas/1/tables/0/columns/47/type: range kept as its text form [range-text]
-- loss: /schemas/1/tables/0/columns/48/type: range kept as its text form [range-text]
-- loss: /schemas/1/tables/0/columns/49/type: range kept as its text form [range-text]
-- loss: /schemas/1/tables/0/columns/50/type: range kept as its text form [range-text]
-- loss: /schemas/1/tables/0/columns/51/type: range kept as its text form [range-text]
-- loss: /schemas/1/tables/0/columns/52/type: range kept as its text form [range-text]
-- approximation: /schemas/1/tables/0/columns/53/type: ENUM kept as TEXT + CHECK (IN labels); declaration-order sorting lost [enum-check]
-- approximation: /schemas/1/tables/0/columns/54/type: array kept as a JSON array [array-json]
-- approximation: /schemas/1/tables/0/columns/55/type: length not enforced [varchar]
-- loss: /schemas/1/tables/0/columns/55/type: check of domain us_postal_code not translated from postgresql (unsupported construct RegexpLike); dropped [expression-guard]
-- approximation: /schemas/1/tables/0/columns/55/type: domain 'us_postal_code' replaced by its base type with its checks [domain-inlined]
-- loss: /schemas/1/tables/0/columns/56/type: engine-specific type kept as its text form [opaque-text]
-- approximation: /schemas/1/tables/0/columns/58/type: numeric values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [numeric]
-- loss: /schemas/1/tables/0/columns/59/type: range kept as its text form [range-text]
-- loss: /schemas/1/tables/0/columns/60/type: range kept as its text form [range-text]
-- approximation: /schemas/1/tables/0/columns/61/collation: collation 'case_insensitive' replaced by the target default [collation-default]
-- approximation: /schemas/1/tables/0/indexes/0/kind: gin index dropped (sqlite has no counterpart) [index-kind-dropped]
-- approximation: /schemas/1/tables/0/indexes/1/kind: gist index dropped (sqlite has no counterpart) [index-kind-dropped]
-- approximation: /schemas/1/tables/0/indexes/2/parts/0/nulls: NULLS LAST dropped (not allowed in SQLite indexes) [nulls-order]
-- approximation: /schemas/1/tables/0/indexes/2/parts/1/nulls: NULLS FIRST dropped (not allowed in SQLite indexes) [nulls-order]
-- approximation: /schemas/1/tables/0/indexes/3/kind: brin index dropped (sqlite has no counterpart) [index-kind-dropped]
-- approximation: /schemas/1/tables/0/indexes/4/kind: hash index made a btree index [index-kind-btree]
-- approximation: /schemas/1/tables/0/indexes/4/comment: index comment dropped [comment-dropped]
-- approximation: /schemas/1/tables/0/comment: table comment dropped [comment-dropped]
-- approximation: /schemas/1/tables/0/columns/29/comment: column comment dropped [comment-dropped]
-- approximation: /schemas/1/tables/1/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- loss: /schemas/1/tables/1/columns/1/type: range kept as its text form [range-text]
-- approximation: /schemas/1/tables/1/options/postgresql/exclusions: postgresql table option exclusions=[{'comment': 'one booking at a time', 'definition': 'EXCLUDE USING gist (during WITH &&)', 'name': 'booking_no_overlap'}] has no sqlite counterpart [foreign-option]
-- approximation: /schemas/1/tables/2/columns/0/options/postgresql: postgresql column options dropped [foreign-option]
-- approximation: /schemas/1/tables/2/columns/1/options/postgresql: postgresql column options dropped [foreign-option]
-- approximation: /schemas/1/tables/2/columns/2/type: length not enforced [char]
-- loss: /schemas/1/tables/2/inherits: table inheritance dropped [inherits-dropped]
-- approximation: /schemas/1/tables/4/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/1/tables/4/columns/1/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/1/tables/4/columns/4/type: ENUM kept as TEXT + CHECK (IN labels); declaration-order sorting lost [enum-check]
-- approximation: /schemas/1/tables/4/columns/5/type: length not enforced [varchar]
-- loss: /schemas/1/tables/4/columns/5/type: check of domain us_postal_code not translated from postgresql (unsupported construct RegexpLike); dropped [expression-guard]
-- approximation: /schemas/1/tables/4/columns/5/type: domain 'us_postal_code' replaced by its base type with its checks [domain-inlined]
-- approximation: /schemas/1/tables/4/uniques/0/deferrable: DEFERRABLE dropped (checked immediately) [deferrable-dropped]
-- loss: /schemas/1/tables/4/uniques/1/nulls_not_distinct: NULLS NOT DISTINCT dropped (several NULLs allowed) [nulls-distinct]
-- approximation: /schemas/1/tables/4/columns/4/comment: column comment dropped [comment-dropped]
-- approximation: /schemas/1/tables/5/partitioning: partitioning not translated (the table is created unpartitioned) [partitioning-dropped]
-- approximation: /schemas/1/tables/6/partition_of: partition of 'measurement' created as a plain table [partition-plain-table]
-- approximation: /schemas/1/tables/7/partition_of: partition of 'measurement' created as a plain table [partition-plain-table]
-- approximation: /schemas/1/tables/8/partition_of: partition of 'measurement' created as a plain table [partition-plain-table]
-- approximation: /schemas/1/tables/9/options/postgresql/policies: postgresql table option policies=[{'command': 'ALL', 'name': 'scratch_guard', 'restrictive': True, 'roles': ['PUBLIC'], 'using': 'v IS NOT NULL'}, {'command': 'UPDATE', 'name': 'scratch_own', 'roles': ['PUBLIC'], 'using': 'k = CURRENT_USER', 'with_check': "k <> ''::text"}] has no sqlite counterpart [foreign-option]
-- approximation: /schemas/1/tables/9/options/postgresql/replica_identity: postgresql table option replica_identity='full' has no sqlite counterpart [foreign-option]
-- approximation: /schemas/1/tables/9/options/postgresql/row_security: postgresql table option row_security=True has no sqlite counterpart [foreign-option]
-- approximation: /schemas/1/tables/9/options/postgresql/unlogged: postgresql table option unlogged=True has no sqlite counterpart [foreign-option]
-- approximation: /schemas/1/tables/9/options/postgresql/with: postgresql table option with=['fillfactor=70', 'autovacuum_enabled=false'] has no sqlite counterpart [foreign-option]
-- approximation: /schemas/1/tables/10/columns/1/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/1/tables/10/columns/5/type: decimal values with more than 15 significant digits are stored inexactly (NUMERIC affinity) [decimal]
-- approximation: /schemas/1/tables/10/indexes/2/include: INCLUDE columns dropped [include-dropped]
-- approximation: /schemas/1/tables/11/columns/0/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/1/tables/11/columns/1/type: length not enforced [varchar]
-- approximation: /schemas/1/tables/11/columns/2/type: widened to SQLite's signed 64-bit INTEGER (the rowid) [int-identity-rowid]
-- approximation: /schemas/1/tables/11/columns/3/type: length not enforced [char]
-- loss: /schemas/1/tables/11/foreign_keys/1/match: MATCH FULL dropped [fk-match-dropped]
-- approximation: /schemas/1/tables/11/foreign_keys/1/enforced: NOT VALID foreign key created validated [fk-not-valid]
-- approximation: /schemas/1/tables/0/checks/0/comment: constraint comment dropped [comment-dropped]
-- approximation: /schemas/1/tables/11/foreign_keys/0/comment: constraint comment dropped [comment-dropped]
-- loss: /schemas/1/routines/0: function 'add_tax' not translated from postgresql [routine-not-translated]
-- loss: /schemas/1/routines/1: function 'add_tax' not translated from postgresql [routine-not-translated]
-- loss: /schemas/1/routines/2: function 'audit_store' not translated from postgresql [routine-not-translated]
-- loss: /schemas/1/routines/3: procedure 'close_store' not translated from postgresql [routine-not-translated]
-- loss: /schemas/1/routines/4: function 'staff_of' not translated from postgresql [routine-not-translated]
-- loss: /schemas/1/routines/5: function 'store_count' not translated from postgresql [routine-not-translated]
-- loss: /schemas/1/routines/6: function 'store_names' not translated from postgresql [routine-not-translated]
-- loss: /schemas/1/routines/8: function 'touch_staff' not translated from postgresql [routine-not-translated]
-- loss: /schemas/1/routines/7: aggregate 'text_concat' not translated from postgresql [routine-not-translated]
-- approximation: /schemas/1/views/0/comment: view comment dropped [comment-dropped]
-- loss: /schemas/1/views/1/check_option: WITH CHECK OPTION dropped (SQLite views are read-only) [check-option-dropped]
-- loss: /schemas/1/views/2/check_option: WITH CHECK OPTION dropped (SQLite views are read-only) [check-option-dropped]
-- approximation: /schemas/1/views/3/comment: view comment dropped [comment-dropped]
-- approximation: /schemas/1/views/3/materialized: materialized view created as a plain view [matview-plain]
-- loss: /schemas/1/triggers/0: trigger 'staff_touch' not translated from postgresql [trigger-not-translated]
-- loss: /schemas/1/triggers/1: trigger 'store_audit' not translated from postgresql [trigger-not-translated]
