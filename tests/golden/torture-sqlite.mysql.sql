-- pre-data
CREATE TABLE `author` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `name` varchar(100) NOT NULL,
  `email` longtext NULL,
  `born` date NULL,
  `rating` double NULL DEFAULT 2.5,
  `active` tinyint(1) NOT NULL DEFAULT 1,
  `created` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin;
CREATE TABLE `book` (
  `book_id` bigint NOT NULL AUTO_INCREMENT,
  `author_id` bigint NOT NULL,
  `title` varchar(200) NOT NULL DEFAULT 'Untitled ''draft''',
  `isbn` char(13) NULL,
  `price` decimal(10,2) NULL,
  `pages` smallint unsigned NULL DEFAULT 100,
  `weight` double NULL,
  `cover` longblob NULL,
  `meta` json NULL DEFAULT ('{}'),
  `guid` char(36) NULL,
  `published` datetime(3) NULL,
  `starts_at` time(6) NULL,
  `anything` longtext NULL,
  `odd` decimal(65,30) NULL,
  `title_lower` longtext GENERATED ALWAYS AS (LOWER(`title`)) VIRTUAL,
  `price_cents` bigint GENERATED ALWAYS AS (CAST(`price` * 100 AS SIGNED)) STORED,
  `updated` longtext NULL,
  PRIMARY KEY (`book_id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin;
CREATE TABLE `book_tag` (
  `book_id` bigint NOT NULL,
  `tag_name` varchar(376) NOT NULL,
  `tag_lang` varchar(376) NOT NULL,
  PRIMARY KEY (`book_id`, `tag_name`, `tag_lang`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin;
CREATE TABLE `strict_counter` (
  `id` bigint NOT NULL,
  `n` bigint NOT NULL DEFAULT 0,
  `label` longtext NULL,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin;
CREATE TABLE `tag` (
  `name` varchar(376) NOT NULL,
  `lang` varchar(376) NOT NULL DEFAULT 'en',
  `weight` bigint NULL DEFAULT -1,
  PRIMARY KEY (`name`, `lang`)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin;
-- post-data
ALTER TABLE `author` ADD CONSTRAINT `author_email_key` UNIQUE KEY ((unhex(sha2(weight_string(`email`), 256))));
ALTER TABLE `author` ADD CONSTRAINT `author_name_nonempty` CHECK (CHAR_LENGTH(`name`) > 0);
ALTER TABLE `book` ADD CONSTRAINT `book_author_id_title_key` UNIQUE KEY (`author_id`, `title`);
ALTER TABLE `book` ADD CONSTRAINT `book_isbn_key` UNIQUE KEY (`isbn`);
ALTER TABLE `book` ADD CONSTRAINT `book_check` CHECK (`pages` IS NULL OR `pages` > 0);
ALTER TABLE `book` ADD CONSTRAINT `book_price_check` CHECK (`price` >= 0);
CREATE INDEX `book price idx` ON `book` (`price`);
CREATE INDEX `book_title_idx` ON `book` (`title` DESC, `isbn`);
ALTER TABLE `book` ADD CONSTRAINT `book_author_fk` FOREIGN KEY (`author_id`) REFERENCES `author` (`id`) ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE `book_tag` ADD CONSTRAINT `book_tag_book_id_fkey` FOREIGN KEY (`book_id`) REFERENCES `book` (`book_id`) ON DELETE NO ACTION ON UPDATE CASCADE;
ALTER TABLE `book_tag` ADD CONSTRAINT `book_tag_tag_name_tag_lang_fkey` FOREIGN KEY (`tag_name`, `tag_lang`) REFERENCES `tag` (`name`, `lang`) ON DELETE NO ACTION ON UPDATE NO ACTION;
CREATE VIEW `author_stats` (`author`, `books`) AS SELECT `a`.`name`, COUNT(`b`.`book_id`) FROM `author` AS `a` LEFT JOIN `book` AS `b` ON `b`.`author_id` = `a`.`id` GROUP BY `a`.`id`;
CREATE VIEW `cheap_books` AS SELECT `book_id`, `title` FROM `book` WHERE `price` < 10;
ALTER TABLE `book` AUTO_INCREMENT = 3;

-- translation report: 24 item(s)
-- approximation: /schemas/0/options/sqlite/user_version: sqlite schema option user_version dropped [schema-option-dropped]
-- approximation: /schemas/0/tables/0/columns/0/nullable: primary key column made NOT NULL [pk-not-null]
-- approximation: /schemas/0/tables/0/columns/1/collation: collation 'NOCASE' replaced by utf8mb4_0900_bin (binary, NO PAD: unique keys that held still hold) [collation-binary]
-- approximation: /schemas/0/tables/0/columns/5/type: boolean kept as tinyint(1) (other small integers are accepted) [boolean-tinyint1]
-- approximation: /schemas/0/tables/0/uniques/0: unique key over email, too long for the 3072-byte InnoDB key limit, enforced through SHA-256 functional key parts (unhex(sha2(weight_string(col), 256)): equal under the column's collation) for those columns; the columns keep their full length (not usable for range scans or foreign keys) [long-unique-hash]
-- loss: /schemas/0/tables/0/indexes/0/where: partial unique index dropped (cannot be expressed) [partial-unique-dropped]
-- approximation: /schemas/0/tables/1/columns/0/nullable: primary key column made NOT NULL [pk-not-null]
-- approximation: /schemas/0/tables/1/columns/8/type: JSON text (key order, duplicate keys, whitespace, number spelling) normalized by MySQL's binary JSON [json-text-binary]
-- approximation: /schemas/0/tables/1/columns/9/type: uuid kept as CHAR(36) [uuid-char36]
-- loss: /schemas/0/tables/1/columns/12/type: engine-specific type kept as its text form [opaque-longtext]
-- approximation: /schemas/0/tables/1/columns/13/type: type 'MONEY' replaced by its base type [base-type]
-- loss: /schemas/0/tables/1/columns/13/type: unconstrained numeric limited to DECIMAL(65,30) (35 integer and 30 fraction digits; NaN/Infinity rejected) [numeric-unconstrained]
-- loss: /schemas/0/tables/1/columns/16/default: default expression not translated from sqlite (function DATETIME() is not known to translate); dropped [expression-guard]
-- approximation: /schemas/0/tables/1/indexes/0/where: partial index made a full index [partial-index-full]
-- loss: /schemas/0/tables/4/columns/0/type: text in a key kept as VARCHAR(n), n = its share of InnoDB's 3072-byte key (longer values rejected) [text-key-varchar]
-- approximation: /schemas/0/tables/2/columns/1/type: type follows the referenced column tag.name (varchar(376)) [fk-same-type]
-- loss: /schemas/0/tables/4/columns/1/type: text in a key kept as VARCHAR(n), n = its share of InnoDB's 3072-byte key (longer values rejected) [text-key-varchar]
-- approximation: /schemas/0/tables/2/columns/2/type: type follows the referenced column tag.lang (varchar(376)) [fk-same-type]
-- approximation: /schemas/0/tables/3/options/sqlite/strict: sqlite table option strict=True has no mysql counterpart [foreign-option]
-- approximation: /schemas/0/tables/4/options/sqlite/without_rowid: sqlite table option without_rowid=True has no mysql counterpart [foreign-option]
-- approximation: /schemas/0/tables/2/foreign_keys/1/deferrable: DEFERRABLE dropped (checked immediately) [deferrable-dropped]
-- loss: /schemas/0/triggers/0: trigger 'author_guard' not translated from sqlite [trigger-not-translated]
-- loss: /schemas/0/triggers/1: trigger 'book_touch' not translated from sqlite [trigger-not-translated]
-- loss: /schemas/0/triggers/2: trigger 'cheap_books_insert' not translated from sqlite [trigger-not-translated]
