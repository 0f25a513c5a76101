-- pre-data
CREATE SEQUENCE `invoice_no` INCREMENT BY 10 MINVALUE 1000 MAXVALUE 999999 START WITH 1000 CACHE 5 CYCLE COMMENT='invoice numbers';
CREATE SEQUENCE `staff_badge_seq` INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775806 START WITH 1 CACHE 1;
CREATE TABLE `inventory_stock` (
  `warehouse_code` char(4) NOT NULL,
  `store_id` int NOT NULL,
  `quantity` int NOT NULL DEFAULT 0,
  PRIMARY KEY (`warehouse_code`, `store_id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `inventory_warehouse` (
  `code` char(4) NOT NULL,
  `name` longtext NOT NULL,
  PRIMARY KEY (`code`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `all_types` (
  `id` int NOT NULL AUTO_INCREMENT,
  `c_smallint` smallint NULL,
  `c_integer` int NULL DEFAULT 42,
  `c_bigint` bigint NULL DEFAULT -1,
  `c_numeric` decimal(65,30) NULL,
  `c_numeric_ps` decimal(12,3) NULL DEFAULT 1.5,
  `c_real` float NULL,
  `c_double` double NULL,
  `c_char` char(3) NULL,
  `c_varchar` varchar(50) NULL DEFAULT 'it''s',
  `c_varchar_unbounded` longtext NULL,
  `c_text` longtext NULL DEFAULT 'abc',
  `c_bytea` longblob NULL,
  `c_bit` bit(8) NULL DEFAULT b'10101010',
  `c_varbit` varchar(16) NULL,
  `c_varbit_unbounded` longtext NULL,
  `c_date` date NULL DEFAULT (curdate()),
  `c_time` time(6) NULL,
  `c_time3` time(3) NULL,
  `c_timetz` time(6) NULL,
  `c_timestamp` datetime(6) NULL DEFAULT CURRENT_TIMESTAMP(6),
  `c_timestamp0` datetime(0) NULL,
  `c_timestamptz` datetime(6) NULL DEFAULT CURRENT_TIMESTAMP(6),
  `c_timestamptz3` datetime(3) NULL DEFAULT CURRENT_TIMESTAMP(3),
  `c_interval` varchar(64) NULL,
  `c_interval_ds` varchar(64) NULL,
  `c_interval_ym` varchar(64) NULL,
  `c_boolean` tinyint(1) NOT NULL DEFAULT 1,
  `c_json` json NULL,
  `c_jsonb` json NULL DEFAULT '{}' COMMENT 'binary JSON',
  `c_uuid` uuid NULL DEFAULT uuid(),
  `c_inet` varchar(43) NULL,
  `c_cidr` varchar(43) NULL,
  `c_macaddr` varchar(23) NULL,
  `c_macaddr8` varchar(23) NULL,
  `c_money` decimal(19,2) NULL,
  `c_xml` longtext NULL,
  `c_tsvector` longtext NULL,
  `c_point` longtext NULL,
  `c_polygon` longtext NULL,
  `c_int_array` json NULL,
  `c_text_array` json NULL DEFAULT '[]',
  `c_numeric_array` json NULL,
  `c_matrix` json NULL,
  `c_timestamptz_array` json NULL,
  `c_int4range` varchar(255) NULL,
  `c_int8range` varchar(255) NULL,
  `c_numrange` varchar(255) NULL,
  `c_tsrange` varchar(255) NULL,
  `c_tstzrange` varchar(255) NULL,
  `c_daterange` varchar(255) NULL,
  `c_int4multirange` varchar(255) NULL,
  `c_datemultirange` varchar(255) NULL,
  `c_mood` enum('sad', 'ok', 'happy') NULL DEFAULT 'ok',
  `c_mood_array` json NULL,
  `c_zip` varchar(10) NOT NULL,
  `c_address` longtext NULL,
  `c_expr_default` longtext NULL DEFAULT (CONCAT('a', 'b')),
  `c_total` decimal(65,30) GENERATED ALWAYS AS (`c_numeric_ps` * (2)) STORED,
  `c_floatrange` varchar(255) NULL,
  `c_floatmultirange` varchar(255) NULL,
  `c_ci` longtext NULL,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='one column per core type';
CREATE TABLE `booking` (
  `id` int NOT NULL AUTO_INCREMENT,
  `during` varchar(255) NOT NULL,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `cities` (
  `name` longtext NOT NULL,
  `population` int NULL
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `capitals` (
  `name` longtext NOT NULL,
  `population` int NULL,
  `country` char(2) NOT NULL
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `customer` (
  `id` int NOT NULL AUTO_INCREMENT,
  `store_id` int NULL,
  `email` longtext NOT NULL,
  `phone` longtext NULL,
  `mood` enum('sad', 'ok', 'happy') NOT NULL DEFAULT 'happy' COMMENT 'shares the enum with all_types',
  `zip` varchar(10) NOT NULL,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `measurement` (
  `id` bigint NOT NULL,
  `logdate` date NOT NULL,
  `peak` int NULL,
  PRIMARY KEY (`id`, `logdate`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `scratch` (
  `k` varchar(768) NOT NULL,
  `v` longblob NULL,
  PRIMARY KEY (`k`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `staff` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `store_id` int NOT NULL,
  `name` longtext NOT NULL,
  `email` longtext NULL,
  `active` tinyint(1) NOT NULL DEFAULT 1,
  `salary` decimal(10,2) NULL,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `store` (
  `id` int NOT NULL AUTO_INCREMENT,
  `name` varchar(100) NOT NULL,
  `manager_id` bigint NULL,
  `warehouse_code` char(4) NULL,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
-- post-data
CREATE INDEX `all_types_range_gist` ON `all_types` (`c_tstzrange`);
CREATE INDEX `all_types_text_collate` ON `all_types` (`c_varchar` DESC, `c_integer`);
CREATE INDEX `all_types_ts_brin` ON `all_types` (`c_timestamp`);
CREATE INDEX `all_types_uuid_hash` ON `all_types` (`c_uuid`) COMMENT 'hash lookups';
ALTER TABLE `cities` ADD CONSTRAINT `cities_name_check` CHECK (`name` <> '');
ALTER TABLE `cities` ADD CONSTRAINT `cities_population_check` CHECK (`population` >= 0);
ALTER TABLE `customer` ADD CONSTRAINT `customer_email_key` UNIQUE KEY (`email`) USING HASH;
ALTER TABLE `customer` ADD CONSTRAINT `customer_email_phone_key` UNIQUE KEY (`email`, `phone`) USING HASH;
CREATE INDEX `measurement_peak` ON `measurement` (`peak`);
ALTER TABLE `staff` ADD CONSTRAINT `staff_salary_check` CHECK (`salary` > 0);
CREATE INDEX `staff_active_partial` ON `staff` (`store_id`);
CREATE INDEX `staff_store_include` ON `staff` (`store_id`);
CREATE UNIQUE INDEX `store_name_warehouse` ON `store` (`name`, `warehouse_code`);
ALTER TABLE `inventory_stock` ADD CONSTRAINT `stock_store_fk` FOREIGN KEY (`store_id`) REFERENCES `store` (`id`) ON DELETE NO ACTION ON UPDATE NO ACTION;
ALTER TABLE `inventory_stock` ADD CONSTRAINT `stock_warehouse_code_fkey` FOREIGN KEY (`warehouse_code`) REFERENCES `inventory_warehouse` (`code`) ON DELETE NO ACTION ON UPDATE NO ACTION;
ALTER TABLE `customer` ADD CONSTRAINT `customer_store_id_fkey` FOREIGN KEY (`store_id`) REFERENCES `store` (`id`) ON DELETE NO ACTION ON UPDATE NO ACTION;
ALTER TABLE `staff` ADD CONSTRAINT `staff_store_id_fkey` FOREIGN KEY (`store_id`) REFERENCES `store` (`id`) ON DELETE CASCADE;
ALTER TABLE `store` ADD CONSTRAINT `store_manager_fk` FOREIGN KEY (`manager_id`) REFERENCES `staff` (`id`) ON DELETE NO ACTION ON UPDATE NO ACTION;
ALTER TABLE `store` ADD CONSTRAINT `store_warehouse_fk` FOREIGN KEY (`warehouse_code`) REFERENCES `inventory_warehouse` (`code`) ON DELETE SET NULL ON UPDATE NO ACTION;
CREATE VIEW `low_stock` (`warehouse_code`, `store_id`, `quantity`) AS SELECT `stock`.`warehouse_code`, `stock`.`store_id`, `stock`.`quantity` FROM `inventory_stock` AS `stock` WHERE `stock`.`quantity` < 5;
CREATE VIEW `active_staff` (`id`, `store_id`, `name`) AS SELECT `staff`.`id`, `staff`.`store_id`, `staff`.`name` FROM `staff` WHERE `staff`.`active`;
CREATE VIEW `big_stores` (`id`, `name`, `manager_id`) AS SELECT `store`.`id`, `store`.`name`, `store`.`manager_id` FROM `store` WHERE `store`.`id` > 10 WITH CASCADED CHECK OPTION;
CREATE VIEW `local_staff` (`id`, `store_id`, `name`) AS SELECT `active_staff`.`id`, `active_staff`.`store_id`, `active_staff`.`name` FROM `active_staff` WHERE `active_staff`.`store_id` = 1 WITH LOCAL CHECK OPTION;
CREATE VIEW `store_headcount` (`store_id`, `headcount`) AS SELECT `s`.`id` AS `store_id`, COUNT(`f`.`id`) AS `headcount` FROM `store` AS `s` LEFT JOIN `staff` AS `f` ON `f`.`store_id` = `s`.`id` GROUP BY `s`.`id`;
SELECT SETVAL(`invoice_no`, 1050, 0);
SELECT SETVAL(`staff_badge_seq`, 1, 0);
ALTER TABLE `all_types` AUTO_INCREMENT = 100;
ALTER TABLE `booking` AUTO_INCREMENT = 1;
ALTER TABLE `customer` AUTO_INCREMENT = 42;
ALTER TABLE `staff` AUTO_INCREMENT = 1;
ALTER TABLE `store` AUTO_INCREMENT = 1;

-- translation report: 110 item(s)
-- rename: /schemas/0/tables/0/name: table of schema 'inventory' renamed to 'inventory_stock' (mariadb gets one schema) [schema-prefix]
-- rename: /schemas/0/tables/1/name: table of schema 'inventory' renamed to 'inventory_warehouse' (mariadb gets one schema) [schema-prefix]
-- approximation: /schemas/0/enums/0: named enum type 'status' inlined into its columns [enum-inline]
-- approximation: /schemas/0/tables/1/options/postgresql/replica_identity: postgresql table option replica_identity='index' has no mariadb counterpart [foreign-option]
-- approximation: /schemas/0/tables/1/options/postgresql/replica_identity_index: postgresql table option replica_identity_index='warehouse_pkey' has no mariadb counterpart [foreign-option]
-- approximation: /schemas/1/enums/0: named enum type 'mood' inlined into its columns [enum-inline]
-- approximation: /schemas/1/domains/0: domain 'us_postal_code' not created: its columns get its base type, NOT NULL and checks [domain-inlined]
-- loss: /schemas/1/composites/0: composite type 'address' not created [composite-dropped]
-- loss: /schemas/1/options/postgresql/collations: postgresql collations not created [schema-objects-dropped]
-- loss: /schemas/1/options/postgresql/range_types: postgresql range types not created [schema-objects-dropped]
-- approximation: /schemas/1/tables/0/checks/0/enforced: NOT ENFORCED check dropped [check-not-enforced-dropped]
-- approximation: /schemas/1/tables/0/columns/0/identity/always: GENERATED ALWAYS made AUTO_INCREMENT (explicit values allowed) [identity-auto-increment]
-- loss: /schemas/1/tables/0/columns/0/identity/increment: identity increment 5 dropped (server-wide in MySQL) [identity-increment]
-- loss: /schemas/1/tables/0/columns/4/type: unconstrained numeric limited to DECIMAL(65,30) (35 integer and 30 fraction digits; NaN/Infinity rejected) [numeric-unconstrained]
-- approximation: /schemas/1/tables/0/columns/10/type: unbounded varchar kept as LONGTEXT [varchar-unbounded-longtext]
-- approximation: /schemas/1/tables/0/columns/11/collation: collation 'C' replaced by utf8mb4_nopad_bin (binary, NO PAD: unique keys that held still hold) [collation-binary]
-- approximation: /schemas/1/tables/0/columns/14/type: bit string longer than 64 or varying kept as text of 0/1 [bit-long-varchar]
-- approximation: /schemas/1/tables/0/columns/15/type: unbounded bit string kept as text of 0/1 [varbit-longtext]
-- loss: /schemas/1/tables/0/columns/19/type: time zone offset of time with time zone [timetz-time]
-- approximation: /schemas/1/tables/0/columns/22/type: timestamp with time zone kept as DATETIME holding UTC (not TIMESTAMP: no 2038 limit) [timestamptz-datetime-utc]
-- approximation: /schemas/1/tables/0/columns/23/type: timestamp with time zone kept as DATETIME holding UTC (not TIMESTAMP: no 2038 limit) [timestamptz-datetime-utc]
-- loss: /schemas/1/tables/0/columns/24/type: interval kept as ISO 8601 duration text [interval-iso8601]
-- loss: /schemas/1/tables/0/columns/25/type: interval kept as ISO 8601 duration text [interval-iso8601]
-- loss: /schemas/1/tables/0/columns/26/type: interval kept as ISO 8601 duration text [interval-iso8601]
-- approximation: /schemas/1/tables/0/columns/27/type: boolean kept as tinyint(1) (other small integers are accepted) [boolean-tinyint1]
-- approximation: /schemas/1/tables/0/columns/31/type: network address (IPv4 or IPv6, maybe with a netmask) kept as VARCHAR(43) text [inet-varchar43]
-- approximation: /schemas/1/tables/0/columns/32/type: network (cidr) kept as VARCHAR(43) text [cidr-varchar43]
-- approximation: /schemas/1/tables/0/columns/33/type: MAC address kept as text [macaddr-varchar]
-- approximation: /schemas/1/tables/0/columns/34/type: MAC address kept as text [macaddr-varchar]
-- approximation: /schemas/1/tables/0/columns/35/type: money kept as DECIMAL(19,2) (currency format) [money-decimal]
-- approximation: /schemas/1/tables/0/columns/36/type: xml kept as LONGTEXT (not validated) [xml-longtext]
-- loss: /schemas/1/tables/0/columns/37/type: engine-specific type kept as its text form [opaque-longtext]
-- loss: /schemas/1/tables/0/columns/38/type: engine-specific type kept as its text form [opaque-longtext]
-- loss: /schemas/1/tables/0/columns/39/type: engine-specific type kept as its text form [opaque-longtext]
-- approximation: /schemas/1/tables/0/columns/40/type: array kept as a JSON array (element type not enforced) [array-json]
-- approximation: /schemas/1/tables/0/columns/41/type: array kept as a JSON array (element type not enforced) [array-json]
-- approximation: /schemas/1/tables/0/columns/42/type: array kept as a JSON array (element type not enforced) [array-json]
-- approximation: /schemas/1/tables/0/columns/43/type: array kept as a JSON array (element type not enforced) [array-json]
-- approximation: /schemas/1/tables/0/columns/44/type: array kept as a JSON array (element type not enforced) [array-json]
-- loss: /schemas/1/tables/0/columns/45/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/1/tables/0/columns/46/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/1/tables/0/columns/47/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/1/tables/0/columns/48/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/1/tables/0/columns/49/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/1/tables/0/columns/50/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/1/tables/0/columns/51/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/1/tables/0/columns/52/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- approximation: /schemas/1/tables/0/columns/54/type: array kept as a JSON array (element type not enforced) [array-json]
-- loss: /schemas/1/tables/0/columns/55/type: check of domain us_postal_code not translated from postgresql (unsupported construct RegexpLike); dropped [expression-guard]
-- approximation: /schemas/1/tables/0/columns/55/type: domain 'us_postal_code' replaced by its base type with its checks [domain-inlined]
-- loss: /schemas/1/tables/0/columns/56/type: engine-specific type kept as its text form [opaque-longtext]
-- loss: /schemas/1/tables/0/columns/58/type: unconstrained numeric limited to DECIMAL(65,30) (35 integer and 30 fraction digits; NaN/Infinity rejected) [numeric-unconstrained]
-- loss: /schemas/1/tables/0/columns/59/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/1/tables/0/columns/60/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- approximation: /schemas/1/tables/0/columns/61/collation: collation 'case_insensitive' replaced by utf8mb4_nopad_bin (binary, NO PAD: unique keys that held still hold) [collation-binary]
-- approximation: /schemas/1/tables/0/indexes/0/kind: gin index made a btree index [index-kind-btree]
-- loss: /schemas/1/tables/0/indexes/0/parts/0: column of kind json cannot be indexed by mariadb [unindexable-column]
-- loss: /schemas/1/tables/0/indexes/0: index 'all_types_jsonb_gin' dropped (a key part cannot be translated) [index-dropped]
-- approximation: /schemas/1/tables/0/indexes/1/kind: gist index made a btree index [index-kind-btree]
-- approximation: /schemas/1/tables/0/indexes/2/parts/0/nulls: NULLS LAST ordering dropped [nulls-order]
-- approximation: /schemas/1/tables/0/indexes/2/parts/1/nulls: NULLS FIRST ordering dropped [nulls-order]
-- approximation: /schemas/1/tables/0/indexes/3/kind: brin index made a btree index [index-kind-btree]
-- approximation: /schemas/1/tables/1/columns/0/identity/always: GENERATED ALWAYS made AUTO_INCREMENT (explicit values allowed) [identity-auto-increment]
-- loss: /schemas/1/tables/1/columns/1/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- approximation: /schemas/1/tables/1/options/postgresql/exclusions: postgresql table option exclusions=[{'comment': 'one booking at a time', 'definition': 'EXCLUDE USING gist (during WITH &&)', 'name': 'booking_no_overlap'}] has no mariadb counterpart [foreign-option]
-- approximation: /schemas/1/tables/2/columns/0/options/postgresql: postgresql column options dropped [foreign-option]
-- approximation: /schemas/1/tables/2/columns/1/options/postgresql: postgresql column options dropped [foreign-option]
-- loss: /schemas/1/tables/2/inherits: table inheritance dropped [inherits-dropped]
-- loss: /schemas/1/tables/4/columns/5/type: check of domain us_postal_code not translated from postgresql (unsupported construct RegexpLike); dropped [expression-guard]
-- approximation: /schemas/1/tables/4/columns/5/type: domain 'us_postal_code' replaced by its base type with its checks [domain-inlined]
-- approximation: /schemas/1/tables/4/uniques/0/deferrable: DEFERRABLE dropped (checked immediately) [deferrable-dropped]
-- approximation: /schemas/1/tables/4/uniques/0: unique key over email, too long for the 3072-byte InnoDB key limit, enforced through a MariaDB long unique key (USING HASH: a hidden hash column, checked on every write); the columns keep their full length (not usable for range scans or foreign keys) [long-unique-hash]
-- loss: /schemas/1/tables/4/uniques/1/nulls_not_distinct: NULLS NOT DISTINCT dropped (several NULLs allowed) [nulls-distinct]
-- approximation: /schemas/1/tables/4/uniques/1: unique key over email, phone, too long for the 3072-byte InnoDB key limit, enforced through a MariaDB long unique key (USING HASH: a hidden hash column, checked on every write); the columns keep their full length (not usable for range scans or foreign keys) [long-unique-hash]
-- approximation: /schemas/1/tables/5/partitioning: partitioning not translated (the table is created unpartitioned) [partitioning-dropped]
-- approximation: /schemas/1/tables/6: partition 'measurement_2023' of 'measurement' not created: its rows are in 'measurement', one table with the parent's keys [partition-merged]
-- approximation: /schemas/1/tables/7: partition 'measurement_2024' of 'measurement' not created: its rows are in 'measurement', one table with the parent's keys [partition-merged]
-- approximation: /schemas/1/tables/8: partition 'measurement_other' of 'measurement' not created: its rows are in 'measurement', one table with the parent's keys [partition-merged]
-- loss: /schemas/1/tables/9/columns/0/type: text in a key kept as VARCHAR(n), n = its share of InnoDB's 3072-byte key (longer values rejected) [text-key-varchar]
-- approximation: /schemas/1/tables/9/options/postgresql/policies: postgresql table option policies=[{'command': 'ALL', 'name': 'scratch_guard', 'restrictive': True, 'roles': ['PUBLIC'], 'using': 'v IS NOT NULL'}, {'command': 'UPDATE', 'name': 'scratch_own', 'roles': ['PUBLIC'], 'using': 'k = CURRENT_USER', 'with_check': "k <> ''::text"}] has no mariadb counterpart [foreign-option]
-- approximation: /schemas/1/tables/9/options/postgresql/replica_identity: postgresql table option replica_identity='full' has no mariadb counterpart [foreign-option]
-- approximation: /schemas/1/tables/9/options/postgresql/row_security: postgresql table option row_security=True has no mariadb counterpart [foreign-option]
-- approximation: /schemas/1/tables/9/options/postgresql/unlogged: postgresql table option unlogged=True has no mariadb counterpart [foreign-option]
-- approximation: /schemas/1/tables/9/options/postgresql/with: postgresql table option with=['fillfactor=70', 'autovacuum_enabled=false'] has no mariadb counterpart [foreign-option]
-- approximation: /schemas/1/tables/10/columns/4/type: boolean kept as tinyint(1) (other small integers are accepted) [boolean-tinyint1]
-- approximation: /schemas/1/tables/10/indexes/0/where: partial index made a full index [partial-index-full]
-- loss: /schemas/1/tables/10/indexes/1/parts/0/expression: MariaDB has no functional key parts [expression-index-dropped]
-- loss: /schemas/1/tables/10/indexes/1: index 'staff_email_lower' dropped (a key part cannot be translated) [index-dropped]
-- approximation: /schemas/1/tables/10/indexes/2/include: INCLUDE columns dropped [include-dropped]
-- approximation: /schemas/1/tables/11/columns/2/type: type follows the referenced column staff.id (bigint) [fk-same-type]
-- loss: /schemas/1/tables/11/indexes/0/nulls_not_distinct: NULLS NOT DISTINCT dropped (several NULLs allowed) [nulls-distinct]
-- approximation: /schemas/1/tables/11/foreign_keys/0/deferrable: DEFERRABLE dropped (checked immediately) [deferrable-dropped]
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
-- approximation: /schemas/1/views/3/comment: view comment dropped [comment-dropped]
-- approximation: /schemas/1/views/3/materialized: materialized view created as a plain view [matview-plain]
-- loss: /schemas/1/triggers/0: trigger 'staff_touch' not translated from postgresql [trigger-not-translated]
-- loss: /schemas/1/triggers/1: trigger 'store_audit' not translated from postgresql [trigger-not-translated]
