-- pre-data
CREATE TABLE `customers` (
  `id` int unsigned NOT NULL AUTO_INCREMENT,
  `email` varchar(191) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NOT NULL,
  `name` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NULL COMMENT 'display name',
  `status` enum('active','blocked','it''s') CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NOT NULL DEFAULT 'active',
  `tags` set('a','b','c') CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NULL,
  `is_vip` tinyint(1) NOT NULL DEFAULT 0,
  `balance` decimal(12,2) NULL DEFAULT 0.00,
  `created_at` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  `updated_at` datetime(3) NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  `profile` json NULL,
  `big_counter` bigint unsigned NOT NULL DEFAULT 0,
  `birth_year` year NULL,
  `notes` text CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NULL,
  `referrer_id` int unsigned NULL,
  `full_name` varchar(250) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci GENERATED ALWAYS AS (concat(`name`,_utf8mb4' <',`email`,_utf8mb4'>')) VIRTUAL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_uca1400_ai_ci COMMENT='People who buy things';
CREATE TABLE `order_items` (
  `id` bigint unsigned NOT NULL AUTO_INCREMENT,
  `order_id` bigint unsigned NOT NULL,
  `qty` smallint unsigned NOT NULL DEFAULT 1,
  `price` decimal(10,2) NOT NULL,
  `amount` decimal(12,2) GENERATED ALWAYS AS ((`qty` * `price`)) STORED,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_uca1400_ai_ci;
CREATE TABLE `a_table_with_a_really_long_name_that_goes_past_the_postgres_limi` (
  `id` int NOT NULL,
  `v` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_uca1400_ai_ci;
CREATE TABLE `orders` (
  `id` bigint unsigned NOT NULL AUTO_INCREMENT,
  `customer_id` int unsigned NOT NULL,
  `total` decimal(10,2) NOT NULL,
  `ordered_on` date NULL DEFAULT (curdate()),
  `ref` char(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_uca1400_ai_ci NULL DEFAULT uuid(),
  `flags` bit(3) NULL DEFAULT b'101',
  `weight` double NULL,
  `payload` mediumblob NULL,
  `last_item_id` bigint unsigned NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_uca1400_ai_ci;
-- post-data
ALTER TABLE `customers` ADD CONSTRAINT `uq_email` UNIQUE KEY (`email`);
ALTER TABLE `customers` ADD CONSTRAINT `customers_chk_balance` CHECK (`balance` >= -(1000));
CREATE INDEX `idx_name` ON `customers` (`name`(20));
CREATE FULLTEXT INDEX `ft_notes` ON `customers` (`notes`);
CREATE INDEX `idx_created` ON `customers` (`created_at` DESC) COMMENT 'recent first';
ALTER TABLE `order_items` ADD CONSTRAINT `order_items_chk_1` CHECK (`qty` > 0);
CREATE INDEX `idx_name` ON `a_table_with_a_really_long_name_that_goes_past_the_postgres_limi` (`v`);
CREATE INDEX `idx_name` ON `orders` (`customer_id`, `ordered_on`);
ALTER TABLE `customers` ADD CONSTRAINT `fk_customers_referrer` FOREIGN KEY (`referrer_id`) REFERENCES `customers` (`id`) ON DELETE SET NULL ON UPDATE NO ACTION;
ALTER TABLE `order_items` ADD CONSTRAINT `fk_items_order` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE `orders` ADD CONSTRAINT `fk_orders_customer` FOREIGN KEY (`customer_id`) REFERENCES `customers` (`id`) ON DELETE CASCADE;
ALTER TABLE `orders` ADD CONSTRAINT `fk_orders_last_item` FOREIGN KEY (`last_item_id`) REFERENCES `order_items` (`id`) ON DELETE NO ACTION ON UPDATE NO ACTION;
CREATE FUNCTION `add_one`(x int) RETURNS int DETERMINISTIC RETURN x + 1;
CREATE VIEW `vip_customers` AS select `customers`.`id` AS `id`,`customers`.`email` AS `email` from `customers` where (`customers`.`is_vip` = 1);
CREATE VIEW `order_totals` AS select `o`.`customer_id` AS `customer_id`,sum(`o`.`total`) AS `total` from `orders` `o` group by `o`.`customer_id`;
CREATE VIEW `weird` AS select unix_timestamp() AS `now_ts`;
CREATE TRIGGER `orders_bi` BEFORE INSERT ON `orders` FOR EACH ROW SET NEW.total = ROUND(NEW.total, 2);
ALTER TABLE `customers` AUTO_INCREMENT = 1001;
ALTER TABLE `orders` AUTO_INCREMENT = 5000;

-- translation report: 13 item(s)
-- approximation: /schemas/0/tables/0/columns/1/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/0/columns/2/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/0/columns/3/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/0/columns/4/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/0/columns/12/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/0/columns/14/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/0/options/mysql/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/1/checks/1/enforced: NOT ENFORCED check dropped [check-not-enforced-dropped]
-- approximation: /schemas/0/tables/1/options/mysql/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/2/columns/1/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/2/options/mysql/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/3/columns/4/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
-- approximation: /schemas/0/tables/3/options/mysql/collation: collation 'utf8mb4_0900_ai_ci' replaced by 'utf8mb4_uca1400_ai_ci' [collation-map]
