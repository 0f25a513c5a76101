-- pre-data
CREATE TABLE `child` (
  `id` int(11) NOT NULL,
  `parent_id` int(11) NULL,
  `pa` int(11) NULL,
  `pb` int(11) NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `features` (
  `id` int(11) NOT NULL AUTO_INCREMENT,
  `price` decimal(8,2) NOT NULL,
  `qty` int(11) NOT NULL DEFAULT 1,
  `total` decimal(10,2) GENERATED ALWAYS AS (`price` * `qty`) STORED,
  `label` varchar(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci GENERATED ALWAYS AS (concat('item-',`qty`)) VIRTUAL,
  `secret` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT 'hidden' INVISIBLE,
  `email` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  `email_lc` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci GENERATED ALWAYS AS (lcase(`email`)) VIRTUAL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `geo` (
  `id` int(11) NOT NULL,
  `g` geometry NULL,
  `p` point NOT NULL,
  `ls` linestring NULL,
  `pg` polygon NULL,
  `mp` multipoint NULL,
  `mls` multilinestring NULL,
  `mpg` multipolygon NULL,
  `gc` geometrycollection NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `ints` (
  `id` int(11) NOT NULL AUTO_INCREMENT COMMENT 'surrogate key',
  `t` tinyint(4) NULL,
  `tu` tinyint(3) unsigned NULL,
  `tz` tinyint(3) unsigned zerofill NULL,
  `b` tinyint(1) NULL DEFAULT 1,
  `s` smallint(6) NULL DEFAULT -5,
  `su` smallint(5) unsigned NULL,
  `m` mediumint(9) NULL,
  `mu` mediumint(8) unsigned NOT NULL DEFAULT 7,
  `i` int(11) NULL,
  `iu` int(10) unsigned NULL,
  `iz` int(8) unsigned zerofill NULL,
  `bi` bigint(20) NULL,
  `bu` bigint(20) unsigned NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='integer widths';
CREATE TABLE `kparts` (
  `id` int(11) NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci
PARTITION BY KEY (`id`) (PARTITION `p0`, PARTITION `p1`, PARTITION `p2`);
CREATE TABLE `lparts` (
  `id` int(11) NOT NULL,
  `region` char(2) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL,
  PRIMARY KEY (`id`, `region`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci
PARTITION BY LIST COLUMNS (`region`) (PARTITION `peu` VALUES IN ('de','fr'), PARTITION `pus` VALUES IN ('us'));
CREATE TABLE `memo` (
  `k` int(11) NOT NULL,
  `v` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL
) ENGINE=MEMORY DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `nums` (
  `id` bigint(20) unsigned NOT NULL AUTO_INCREMENT,
  `d` decimal(10,2) NULL DEFAULT 1.50,
  `du` decimal(65,30) unsigned NULL,
  `d0` decimal(10,0) NULL,
  `n` decimal(5,0) NULL,
  `f` float NULL,
  `fu` float unsigned NULL,
  `f24` float NULL,
  `f53` double NULL,
  `fmd` float(7,3) NULL,
  `dbl` double NULL DEFAULT 2.5,
  `dblmd` double(12,4) NULL,
  `r` double NULL,
  `bit1` bit(1) NULL DEFAULT b'1',
  `bit5` bit(5) NULL DEFAULT b'00101',
  `bit64` bit(64) NULL,
  CONSTRAINT `id` UNIQUE KEY (`id`)
) ENGINE=InnoDB ROW_FORMAT=COMPACT DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `odd name``s` (
  `co"l` int(11) NOT NULL COMMENT 'quote''s',
  `ünï` varchar(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT 'ä',
  PRIMARY KEY (`co"l`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='table with an odd name';
CREATE TABLE `orders` (
  `id` bigint(20) NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `parent` (
  `id` int(11) NOT NULL,
  `a` int(11) NOT NULL,
  `b` int(11) NOT NULL,
  `child_id` int(11) NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `parts` (
  `id` int(11) NOT NULL,
  `created` date NOT NULL,
  PRIMARY KEY (`id`, `created`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='range partitioned'
PARTITION BY RANGE (year(`created`)) SUBPARTITION BY HASH (`id`) (PARTITION `p2020` VALUES LESS THAN (2021) COMMENT = 'old' (SUBPARTITION `p2020sp0`, SUBPARTITION `p2020sp1`), PARTITION `p2021` VALUES LESS THAN (2022) (SUBPARTITION `p2021sp0`, SUBPARTITION `p2021sp1`), PARTITION `pmax` VALUES LESS THAN (MAXVALUE) (SUBPARTITION `pmaxsp0`, SUBPARTITION `pmaxsp1`));
CREATE TABLE `strs` (
  `id` int(11) NOT NULL,
  `c` char(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT 'it''s',
  `c0` char(0) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  `vc` varchar(200) CHARACTER SET latin1 COLLATE latin1_bin NULL DEFAULT 'a,b',
  `vu` varchar(50) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL DEFAULT '',
  `va` varchar(20) CHARACTER SET ascii COLLATE ascii_general_ci NULL,
  `nv` varchar(10) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NULL,
  `tt` tinytext CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  `tx` text CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  `mt` mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  `lt` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  `txd` text CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT ('dflt'),
  `nul` varchar(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  `num_str` varchar(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT '42',
  `bn` binary(16) NULL,
  `bt` binary(2) NULL DEFAULT 'ab',
  `bd` varbinary(4) NULL DEFAULT 0x00FF,
  `vb` varbinary(300) NULL,
  `tb` tinyblob NULL,
  `bl` blob NULL,
  `mb` mediumblob NULL,
  `lb` longblob NULL,
  `e` enum('a','b''q','c,d','x\\y') CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL DEFAULT 'b''q',
  `st` set('r','g','b') CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT 'r,b',
  `j` json NULL,
  `jd` json NOT NULL DEFAULT ('{}'),
  `uid` char(36) NULL,
  `ip4` varchar(43) NULL,
  `ip6` varchar(43) NULL DEFAULT '::1',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='strings & blobs';
CREATE TABLE `sv_explicit` (
  `id` int(11) NOT NULL,
  `rs` timestamp(6) NOT NULL INVISIBLE,
  `re` timestamp(6) NOT NULL INVISIBLE,
  `nv` int(11) NULL,
  PRIMARY KEY (`id`, `re`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `times` (
  `id` int(11) NOT NULL,
  `d` date NULL DEFAULT '2000-01-01',
  `dn` date NULL DEFAULT (curdate()),
  `t` time NULL,
  `t3` time(3) NULL DEFAULT '12:00:00.500',
  `dt` datetime NULL,
  `dt6` datetime(6) NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  `ts` timestamp NULL DEFAULT CURRENT_TIMESTAMP,
  `ts3` timestamp(3) NULL ON UPDATE CURRENT_TIMESTAMP(3),
  `y` year(4) NULL DEFAULT 2024,
  `u` char(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL DEFAULT (uuid()),
  `expr_def` int(11) NULL DEFAULT (`id` * 2),
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
CREATE TABLE `versioned` (
  `id` int(11) NOT NULL,
  `v` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='history kept';
-- post-data
CREATE INDEX `fk_child_ab` ON `child` (`pa`, `pb`);
CREATE INDEX `fk_child_parent` ON `child` (`parent_id`);
ALTER TABLE `features` ADD CONSTRAINT `uq_email` UNIQUE KEY (`email`);
ALTER TABLE `features` ADD CONSTRAINT `CONSTRAINT_1` CHECK (`email` like '%@%');
ALTER TABLE `features` ADD CONSTRAINT `chk_qty` CHECK (`qty` < 1000);
ALTER TABLE `features` ADD CONSTRAINT `price` CHECK (`price` >= 0);
CREATE INDEX `ix_lc` ON `features` (`email_lc`, `qty` DESC);
CREATE SPATIAL INDEX `sp_p` ON `geo` (`p`);
CREATE INDEX `ix_hash` ON `memo` (`k`) USING HASH;
ALTER TABLE `parent` ADD CONSTRAINT `uq_ab` UNIQUE KEY (`a`, `b`) COMMENT 'natural key';
CREATE INDEX `fk_parent_child` ON `parent` (`child_id`);
ALTER TABLE `strs` ADD CONSTRAINT `uq_vu` UNIQUE KEY (`vu`);
CREATE FULLTEXT INDEX `ft_body` ON `strs` (`tt`, `mt`) COMMENT 'fulltext on two columns';
CREATE INDEX `ix_prefix` ON `strs` (`vc`(10), `bn`(4));
CREATE INDEX `ix_desc` ON `times` (`d` DESC, `t`);
CREATE INDEX `ix_ignored` ON `times` (`y`) COMMENT 'not used by the optimizer' INVISIBLE;
CREATE UNIQUE INDEX `uq_u_hidden` ON `times` (`u`) INVISIBLE;
ALTER TABLE `child` ADD CONSTRAINT `fk_child_ab` FOREIGN KEY (`pa`, `pb`) REFERENCES `parent` (`a`, `b`) ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE `child` ADD CONSTRAINT `fk_child_parent` FOREIGN KEY (`parent_id`) REFERENCES `parent` (`id`) ON DELETE CASCADE ON UPDATE SET NULL;
ALTER TABLE `parent` ADD CONSTRAINT `fk_parent_child` FOREIGN KEY (`child_id`) REFERENCES `child` (`id`) ON DELETE SET NULL ON UPDATE RESTRICT;
SET @dbjson_sql_mode = @@SESSION.sql_mode;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
DELIMITER $$
CREATE PROCEDURE `add_parent`(IN `p_id` int(11), INOUT `p_a` int(11), OUT `p_out` varchar(20))
  NOT DETERMINISTIC MODIFIES SQL DATA SQL SECURITY DEFINER COMMENT 'inserts a parent'
BEGIN
  INSERT INTO parent (id, a, b) VALUES (p_id, p_a, 0);
  SET p_a = p_a + 1;
  SET p_out = 'done';
END$$
DELIMITER ;
SET SESSION sql_mode = @dbjson_sql_mode;
SET @dbjson_sql_mode = @@SESSION.sql_mode;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
CREATE FUNCTION `label_of`(`p` varchar(20) CHARSET latin1 COLLATE latin1_swedish_ci) RETURNS varchar(30) CHARSET utf8mb4 COLLATE utf8mb4_bin
  DETERMINISTIC CONTAINS SQL SQL SECURITY DEFINER
RETURN concat('<', p, '>');
SET SESSION sql_mode = @dbjson_sql_mode;
SET @dbjson_sql_mode = @@SESSION.sql_mode;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
CREATE FUNCTION `twice`(`x` decimal(10,2)) RETURNS decimal(12,2)
  DETERMINISTIC NO SQL SQL SECURITY INVOKER
RETURN x * 2;
SET SESSION sql_mode = @dbjson_sql_mode;
CREATE ALGORITHM=MERGE SQL SECURITY INVOKER VIEW `v_local` (`pid`, `total`) AS select `parent`.`id` AS `pid`,`parent`.`a` + `parent`.`b` AS `total` from `parent` WITH LOCAL CHECK OPTION;
CREATE ALGORITHM=UNDEFINED SQL SECURITY DEFINER VIEW `v_parent` (`id`, `a`, `b`) AS select `parent`.`id` AS `id`,`parent`.`a` AS `a`,`parent`.`b` AS `b` from `parent` where `parent`.`a` > 0 WITH CASCADED CHECK OPTION;
CREATE ALGORITHM=UNDEFINED SQL SECURITY DEFINER VIEW `v_plain` (`id`, `email`) AS select `f`.`id` AS `id`,`f`.`email` AS `email` from `features` `f`;
SET @dbjson_sql_mode = @@SESSION.sql_mode;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
DELIMITER $$
CREATE TRIGGER `trg_child_bi` BEFORE INSERT ON `child` FOR EACH ROW
BEGIN
  IF NEW.pa IS NULL THEN SET NEW.pa = 0; END IF;
END$$
DELIMITER ;
SET SESSION sql_mode = @dbjson_sql_mode;
SET @dbjson_sql_mode = @@SESSION.sql_mode;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
CREATE TRIGGER `trg_child_bi2` BEFORE INSERT ON `child` FOR EACH ROW FOLLOWS `trg_child_bi`
SET NEW.pb = COALESCE(NEW.pb, 0);
SET SESSION sql_mode = @dbjson_sql_mode;
SET @dbjson_sql_mode = @@SESSION.sql_mode;
SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';
CREATE TRIGGER `trg_parent_au` AFTER UPDATE ON `parent` FOR EACH ROW
UPDATE child SET pa = NEW.a WHERE parent_id = NEW.id;
SET SESSION sql_mode = @dbjson_sql_mode;
CREATE EVENT `ev_cleanup` ON SCHEDULE EVERY 1 DAY STARTS '2030-01-01 03:00:00' ON COMPLETION PRESERVE DISABLE COMMENT 'nightly cleanup'
DO DELETE FROM child WHERE parent_id IS NULL;
CREATE EVENT `ev_odd` ON SCHEDULE EVERY '1:30' HOUR_MINUTE STARTS '2030-01-01 00:00:00' ENDS '2032-01-01 00:00:00' ON COMPLETION NOT PRESERVE DISABLE
DO SELECT 1;
CREATE EVENT `ev_once` ON SCHEDULE AT '2031-06-01 12:00:00' ON COMPLETION NOT PRESERVE DISABLE
DO UPDATE parent SET a = a + 1;
ALTER TABLE `features` AUTO_INCREMENT = 43;
ALTER TABLE `ints` AUTO_INCREMENT = 1000;
ALTER TABLE `nums` AUTO_INCREMENT = 1;

-- translation report: 16 item(s)
-- loss: /schemas/0/sequences/0: sequence 'seq_order' not created (mysql has no sequences) [sequence-dropped]
-- loss: /schemas/0/sequences/1: sequence 'seq_plain' not created (mysql has no sequences) [sequence-dropped]
-- loss: /schemas/0/tables/9/columns/0/default: default expression uses a sequence (mysql has none); dropped [sequence-expression]
-- approximation: /schemas/0/tables/12/columns/24/type: JSON text (key order, duplicate keys, whitespace, number spelling) normalized by MySQL's binary JSON [json-text-binary]
-- approximation: /schemas/0/tables/12/columns/25/type: JSON text (key order, duplicate keys, whitespace, number spelling) normalized by MySQL's binary JSON [json-text-binary]
-- approximation: /schemas/0/tables/12/columns/26/type: uuid kept as CHAR(36) [uuid-char36]
-- approximation: /schemas/0/tables/12/columns/27/type: network address kept as VARCHAR(43) text [inet-varchar43]
-- approximation: /schemas/0/tables/12/columns/28/type: network address kept as VARCHAR(43) text [inet-varchar43]
-- approximation: /schemas/0/tables/13/partitioning: SYSTEM_TIME partitioning dropped (MariaDB only) [partitioning-dropped]
-- approximation: /schemas/0/tables/13/partitioning: partitioning not translated (the table is created unpartitioned) [partitioning-dropped]
-- approximation: /schemas/0/routines/0/options/mysql/sql_mode: sql_mode NO_AUTO_CREATE_USER left out (MySQL 9.1.0 does not know it); created under STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION [sql-mode-word]
-- approximation: /schemas/0/routines/1/options/mysql/sql_mode: sql_mode NO_AUTO_CREATE_USER left out (MySQL 9.1.0 does not know it); created under STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION [sql-mode-word]
-- approximation: /schemas/0/routines/2/options/mysql/sql_mode: sql_mode NO_AUTO_CREATE_USER left out (MySQL 9.1.0 does not know it); created under STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION [sql-mode-word]
-- approximation: /schemas/0/triggers/0/options/mysql/sql_mode: sql_mode NO_AUTO_CREATE_USER left out (MySQL 9.1.0 does not know it); created under STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION [sql-mode-word]
-- approximation: /schemas/0/triggers/1/options/mysql/sql_mode: sql_mode NO_AUTO_CREATE_USER left out (MySQL 9.1.0 does not know it); created under STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION [sql-mode-word]
-- approximation: /schemas/0/triggers/2/options/mysql/sql_mode: sql_mode NO_AUTO_CREATE_USER left out (MySQL 9.1.0 does not know it); created under STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION [sql-mode-word]
