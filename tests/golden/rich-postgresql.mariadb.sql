-- pre-data
CREATE SEQUENCE `ticket_seq` INCREMENT BY 5 START WITH 100;
CREATE TABLE `posts` (
  `id` int NOT NULL AUTO_INCREMENT,
  `user_id` bigint NOT NULL,
  `title` varchar(200) NOT NULL,
  `body` longtext NULL,
  `created` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  `rating` float NULL,
  `data` longblob NULL,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE TABLE `users` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `uid` uuid NOT NULL DEFAULT uuid(),
  `login` longtext NOT NULL,
  `mood` enum('sad', 'ok', 'happy') NULL DEFAULT 'ok',
  `tags` json NULL,
  `ip` varchar(43) NULL,
  `net` varchar(43) NULL,
  `settings` json NOT NULL DEFAULT ('{}'),
  `seen_at` datetime(6) NULL DEFAULT CURRENT_TIMESTAMP(6),
  `score` decimal(65,30) NULL,
  `active` tinyint(1) NOT NULL DEFAULT 1,
  `bio` longtext NULL COMMENT 'free text',
  `span` varchar(255) NULL,
  `wait` varchar(64) NULL,
  `login_lower` longtext GENERATED ALWAYS AS (LOWER(`login`)) STORED,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='Application users';
-- post-data
CREATE INDEX `posts_user_created` ON `posts` (`user_id`, `created` DESC);
ALTER TABLE `users` ADD CONSTRAINT `users_login_key` UNIQUE KEY (`login`) USING HASH;
ALTER TABLE `users` ADD CONSTRAINT `users_login_check` CHECK (CHAR_LENGTH(`login`) > 2);
ALTER TABLE `users` ADD CONSTRAINT `users_mood_check` CHECK ((`mood`) IN ('ok', 'happy', 'sad'));
CREATE INDEX `idx_active_login` ON `users` (`login`(768));
ALTER TABLE `posts` ADD CONSTRAINT `posts_user_id_fkey` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE CASCADE ON UPDATE NO ACTION;
CREATE VIEW `active_users` AS SELECT `users`.`id`, `users`.`login` FROM `users` WHERE `users`.`active`;
SELECT SETVAL(`ticket_seq`, 250, 0);
ALTER TABLE `posts` AUTO_INCREMENT = 7;
ALTER TABLE `users` AUTO_INCREMENT = 42;

-- translation report: 24 item(s)
-- approximation: /schemas/0/enums/0: named enum type 'mood' inlined into its columns [enum-inline]
-- approximation: /schemas/0/tables/0/indexes/0/include: INCLUDE columns dropped [include-dropped]
-- loss: /schemas/0/tables/1/checks/2: check constraint not translated from postgresql (unsupported construct RegexpLike); dropped [expression-guard]
-- approximation: /schemas/0/tables/1/columns/0/identity/always: GENERATED ALWAYS made AUTO_INCREMENT (explicit values allowed) [identity-auto-increment]
-- approximation: /schemas/0/tables/1/columns/4/type: array kept as a JSON array (element type not enforced) [array-json]
-- approximation: /schemas/0/tables/1/columns/5/type: network address (IPv4 or IPv6, maybe with a netmask) kept as VARCHAR(43) text [inet-varchar43]
-- approximation: /schemas/0/tables/1/columns/6/type: network (cidr) kept as VARCHAR(43) text [cidr-varchar43]
-- approximation: /schemas/0/tables/1/columns/8/type: timestamp with time zone kept as DATETIME holding UTC (not TIMESTAMP: no 2038 limit) [timestamptz-datetime-utc]
-- loss: /schemas/0/tables/1/columns/9/type: unconstrained numeric limited to DECIMAL(65,30) (35 integer and 30 fraction digits; NaN/Infinity rejected) [numeric-unconstrained]
-- approximation: /schemas/0/tables/1/columns/10/type: boolean kept as tinyint(1) (other small integers are accepted) [boolean-tinyint1]
-- approximation: /schemas/0/tables/1/columns/11/type: unbounded varchar kept as LONGTEXT [varchar-unbounded-longtext]
-- loss: /schemas/0/tables/1/columns/12/type: range kept as its text form ('[1,5)'); range operators lost [range-text]
-- loss: /schemas/0/tables/1/columns/13/type: interval kept as ISO 8601 duration text [interval-iso8601]
-- approximation: /schemas/0/tables/1/uniques/0: unique key over login, too long for the 3072-byte InnoDB key limit, enforced through a MariaDB long unique key (USING HASH: a hidden hash column, checked on every write); the columns keep their full length (not usable for range scans or foreign keys) [long-unique-hash]
-- approximation: /schemas/0/tables/1/indexes/0/where: partial index made a full index [partial-index-full]
-- approximation: /schemas/0/tables/1/indexes/0/parts/0: index part login made a prefix of its first 768 characters (the whole column is too long for the 3072-byte InnoDB key limit; lookups still work, longer values share index entries) [long-key-prefix]
-- approximation: /schemas/0/tables/1/indexes/1/kind: gin index made a btree index [index-kind-btree]
-- loss: /schemas/0/tables/1/indexes/1/parts/0: column of kind json cannot be indexed by mariadb [unindexable-column]
-- loss: /schemas/0/tables/1/indexes/1: index 'idx_tags' dropped (a key part cannot be translated) [index-dropped]
-- loss: /schemas/0/tables/1/indexes/2/parts/0/expression: MariaDB has no functional key parts [expression-index-dropped]
-- loss: /schemas/0/tables/1/indexes/2: index 'idx_lower_login' dropped (a key part cannot be translated) [index-dropped]
-- approximation: /schemas/0/tables/0/foreign_keys/0/deferrable: DEFERRABLE dropped (checked immediately) [deferrable-dropped]
-- loss: /schemas/0/routines/0: function 'touch' not translated from postgresql [routine-not-translated]
-- loss: /schemas/0/triggers/0: trigger 'posts_touch' not translated from postgresql [trigger-not-translated]
