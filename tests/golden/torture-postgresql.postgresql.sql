-- pre-data
CREATE SCHEMA IF NOT EXISTS "inventory";
COMMENT ON SCHEMA "inventory" IS 'second schema (cross-schema FK target)';
COMMENT ON SCHEMA "public" IS 'standard public schema';
CREATE COLLATION public.case_insensitive (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
COMMENT ON COLLATION "public"."case_insensitive" IS 'ICU, ignores case';
CREATE TYPE "inventory"."status" AS ENUM ('in', 'out');
CREATE TYPE public.floatrange AS RANGE (SUBTYPE = double precision, SUBTYPE_DIFF = float8mi, MULTIRANGE_TYPE_NAME = public.floatmultirange);
CREATE TYPE "public"."mood" AS ENUM ('sad', 'ok', 'happy');
COMMENT ON TYPE "public"."mood" IS 'how it feels';
CREATE DOMAIN "public"."us_postal_code" AS character varying(10) DEFAULT '00000' NOT NULL CONSTRAINT "us_postal_code_check" CHECK (VALUE::text ~ '^\d{5}$'::text OR VALUE::text ~ '^\d{5}-\d{4}$'::text);
COMMENT ON DOMAIN "public"."us_postal_code" IS 'US ZIP code';
CREATE TYPE "public"."address" AS ("street" text, "city" character varying(80), "zip" public.us_postal_code);
COMMENT ON TYPE "public"."address" IS 'a postal address';
CREATE SEQUENCE "public"."invoice_no" AS integer INCREMENT BY 10 MINVALUE 1000 MAXVALUE 999999 START WITH 1000 CACHE 5 CYCLE;
COMMENT ON SEQUENCE "public"."invoice_no" IS 'invoice numbers';
CREATE SEQUENCE "public"."staff_badge_seq" AS bigint INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;
CREATE TABLE "inventory"."stock" (
  "warehouse_code" character(4) NOT NULL,
  "store_id" integer NOT NULL,
  "quantity" integer DEFAULT 0 NOT NULL,
  CONSTRAINT "stock_pkey" PRIMARY KEY ("warehouse_code", "store_id")
);
CREATE TABLE "inventory"."warehouse" (
  "code" character(4) NOT NULL,
  "name" text NOT NULL,
  CONSTRAINT "warehouse_pkey" PRIMARY KEY ("code")
);
CREATE TABLE "public"."all_types" (
  "id" integer GENERATED ALWAYS AS IDENTITY (START WITH 100 INCREMENT BY 5 MINVALUE 1 MAXVALUE 2147483647 CACHE 1) NOT NULL,
  "c_smallint" smallint,
  "c_integer" integer DEFAULT 42,
  "c_bigint" bigint DEFAULT -1,
  "c_numeric" numeric,
  "c_numeric_ps" numeric(12,3) DEFAULT 1.5,
  "c_real" real,
  "c_double" double precision,
  "c_char" character(3),
  "c_varchar" character varying(50) DEFAULT 'it''s',
  "c_varchar_unbounded" character varying,
  "c_text" text COLLATE "C" DEFAULT 'abc',
  "c_bytea" bytea,
  "c_bit" bit(8) DEFAULT B'10101010',
  "c_varbit" bit varying(16),
  "c_varbit_unbounded" bit varying,
  "c_date" date DEFAULT CURRENT_DATE,
  "c_time" time without time zone,
  "c_time3" time(3) without time zone,
  "c_timetz" time with time zone,
  "c_timestamp" timestamp without time zone DEFAULT CURRENT_TIMESTAMP,
  "c_timestamp0" timestamp(0) without time zone,
  "c_timestamptz" timestamp with time zone DEFAULT CURRENT_TIMESTAMP,
  "c_timestamptz3" timestamp(3) with time zone DEFAULT CURRENT_TIMESTAMP(3),
  "c_interval" interval,
  "c_interval_ds" interval day to second(3),
  "c_interval_ym" interval year to month,
  "c_boolean" boolean DEFAULT TRUE NOT NULL,
  "c_json" json,
  "c_jsonb" jsonb DEFAULT '{}',
  "c_uuid" uuid DEFAULT gen_random_uuid(),
  "c_inet" inet,
  "c_cidr" cidr,
  "c_macaddr" macaddr,
  "c_macaddr8" macaddr8,
  "c_money" money,
  "c_xml" xml,
  "c_tsvector" tsvector,
  "c_point" point,
  "c_polygon" polygon,
  "c_int_array" integer[],
  "c_text_array" text[] DEFAULT '{}',
  "c_numeric_array" numeric(5,2)[],
  "c_matrix" double precision[][],
  "c_timestamptz_array" timestamp with time zone[],
  "c_int4range" int4range,
  "c_int8range" int8range,
  "c_numrange" numrange,
  "c_tsrange" tsrange,
  "c_tstzrange" tstzrange,
  "c_daterange" daterange,
  "c_int4multirange" int4multirange,
  "c_datemultirange" datemultirange,
  "c_mood" public.mood DEFAULT 'ok',
  "c_mood_array" public.mood[],
  "c_zip" public.us_postal_code,
  "c_address" public.address,
  "c_expr_default" text DEFAULT 'a'::text || 'b'::text,
  "c_total" numeric GENERATED ALWAYS AS (c_numeric_ps * (2)::numeric) STORED,
  "c_floatrange" public.floatrange,
  "c_floatmultirange" public.floatmultirange,
  "c_ci" text COLLATE "public"."case_insensitive",
  CONSTRAINT "all_types_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "public"."booking" (
  "id" integer GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 CACHE 1) NOT NULL,
  "during" tstzrange NOT NULL,
  CONSTRAINT "booking_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "public"."cities" (
  "name" text NOT NULL,
  "population" integer
);
CREATE TABLE "public"."capitals" (
  "country" character(2) NOT NULL
) INHERITS ("public"."cities");
CREATE TABLE "public"."customer" (
  "id" serial NOT NULL,
  "store_id" integer,
  "email" text NOT NULL,
  "phone" text,
  "mood" public.mood DEFAULT 'happy' NOT NULL,
  "zip" public.us_postal_code,
  CONSTRAINT "customer_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "public"."measurement" (
  "id" bigint NOT NULL,
  "logdate" date NOT NULL,
  "peak" integer,
  CONSTRAINT "measurement_pkey" PRIMARY KEY ("id", "logdate")
) PARTITION BY RANGE (logdate);
CREATE TABLE "public"."measurement_2023" (
  "id" bigint NOT NULL,
  "logdate" date NOT NULL,
  "peak" integer
);
ALTER TABLE "public"."measurement" ATTACH PARTITION "public"."measurement_2023" FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
CREATE TABLE "public"."measurement_2024" (
  "id" bigint NOT NULL,
  "logdate" date NOT NULL,
  "peak" integer
);
ALTER TABLE "public"."measurement" ATTACH PARTITION "public"."measurement_2024" FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE "public"."measurement_other" (
  "id" bigint NOT NULL,
  "logdate" date NOT NULL,
  "peak" integer
);
ALTER TABLE "public"."measurement" ATTACH PARTITION "public"."measurement_other" DEFAULT;
CREATE TABLE "public"."scratch" (
  "k" text NOT NULL,
  "v" bytea,
  CONSTRAINT "scratch_pkey" PRIMARY KEY ("k")
) WITH (fillfactor=70, autovacuum_enabled=false);
ALTER TABLE "public"."scratch" SET UNLOGGED;
CREATE TABLE "public"."staff" (
  "id" bigserial NOT NULL,
  "store_id" integer NOT NULL,
  "name" text NOT NULL,
  "email" text,
  "active" boolean DEFAULT TRUE NOT NULL,
  "salary" numeric(10,2),
  CONSTRAINT "staff_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "public"."store" (
  "id" integer GENERATED BY DEFAULT AS IDENTITY (START WITH 1 INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 CACHE 1) NOT NULL,
  "name" character varying(100) NOT NULL,
  "manager_id" integer,
  "warehouse_code" character(4),
  CONSTRAINT "store_pkey" PRIMARY KEY ("id")
);
-- post-data
ALTER TABLE "inventory"."warehouse" REPLICA IDENTITY USING INDEX "warehouse_pkey";
ALTER TABLE "public"."all_types" ADD CONSTRAINT "all_types_money_check" CHECK (c_money >= 0::money) NOT VALID;
CREATE INDEX "all_types_jsonb_gin" ON "public"."all_types" USING gin ("c_jsonb" jsonb_path_ops);
CREATE INDEX "all_types_range_gist" ON "public"."all_types" USING gist ("c_tstzrange");
CREATE INDEX "all_types_text_collate" ON "public"."all_types" ("c_varchar" COLLATE "C" DESC NULLS LAST, "c_integer" NULLS FIRST);
CREATE INDEX "all_types_ts_brin" ON "public"."all_types" USING brin ("c_timestamp") WITH (pages_per_range=32);
CREATE INDEX "all_types_uuid_hash" ON "public"."all_types" USING hash ("c_uuid");
COMMENT ON INDEX "public"."all_types_uuid_hash" IS 'hash lookups';
COMMENT ON TABLE "public"."all_types" IS 'one column per core type';
COMMENT ON COLUMN "public"."all_types"."c_jsonb" IS 'binary JSON';
ALTER TABLE "public"."booking" ADD CONSTRAINT "booking_no_overlap" EXCLUDE USING gist (during WITH &&);
COMMENT ON CONSTRAINT "booking_no_overlap" ON "public"."booking" IS 'one booking at a time';
ALTER TABLE "public"."cities" ADD CONSTRAINT "cities_name_check" CHECK (name <> ''::text) NO INHERIT;
ALTER TABLE "public"."cities" ADD CONSTRAINT "cities_population_check" CHECK (population >= 0);
ALTER TABLE "public"."customer" ADD CONSTRAINT "customer_email_key" UNIQUE ("email") DEFERRABLE;
ALTER TABLE "public"."customer" ADD CONSTRAINT "customer_email_phone_key" UNIQUE NULLS NOT DISTINCT ("email", "phone");
COMMENT ON COLUMN "public"."customer"."mood" IS 'shares the enum with all_types';
CREATE INDEX "measurement_peak" ON "public"."measurement" ("peak");
ALTER TABLE "public"."scratch" REPLICA IDENTITY FULL;
ALTER TABLE "public"."staff" ADD CONSTRAINT "staff_salary_check" CHECK (salary > 0::numeric);
CREATE INDEX "staff_active_partial" ON "public"."staff" ("store_id") WHERE active;
CREATE UNIQUE INDEX "staff_email_lower" ON "public"."staff" ((lower(email)));
CREATE INDEX "staff_store_include" ON "public"."staff" ("store_id") INCLUDE ("name", "email");
CREATE UNIQUE INDEX "store_name_warehouse" ON "public"."store" ("name", "warehouse_code") NULLS NOT DISTINCT;
ALTER TABLE "inventory"."stock" ADD CONSTRAINT "stock_store_fk" FOREIGN KEY ("store_id") REFERENCES "public"."store" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION;
ALTER TABLE "inventory"."stock" ADD CONSTRAINT "stock_warehouse_code_fkey" FOREIGN KEY ("warehouse_code") REFERENCES "inventory"."warehouse" ("code") ON DELETE NO ACTION ON UPDATE NO ACTION;
ALTER TABLE "public"."customer" ADD CONSTRAINT "customer_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "public"."store" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION;
ALTER TABLE "public"."staff" ADD CONSTRAINT "staff_store_id_fkey" FOREIGN KEY ("store_id") REFERENCES "public"."store" ("id") ON DELETE CASCADE ON UPDATE RESTRICT;
ALTER TABLE "public"."store" ADD CONSTRAINT "store_manager_fk" FOREIGN KEY ("manager_id") REFERENCES "public"."staff" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE "public"."store" ADD CONSTRAINT "store_warehouse_fk" FOREIGN KEY ("warehouse_code") REFERENCES "inventory"."warehouse" ("code") MATCH FULL ON DELETE SET NULL ON UPDATE NO ACTION NOT VALID;
COMMENT ON CONSTRAINT "all_types_money_check" ON "public"."all_types" IS 'no debts';
COMMENT ON CONSTRAINT "store_manager_fk" ON "public"."store" IS 'the manager works here';
SET check_function_bodies = off;
CREATE OR REPLACE FUNCTION public.add_tax(amount integer)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$ SELECT amount * 2 $function$;
SET check_function_bodies = off;
CREATE OR REPLACE FUNCTION public.add_tax(amount numeric, rate numeric DEFAULT 0.2, label text DEFAULT 'vat, incl.'::text)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE STRICT
AS $function$ SELECT amount * (1 + rate) $function$;
COMMENT ON FUNCTION "public"."add_tax"(amount numeric, rate numeric, label text) IS 'price with tax';
SET check_function_bodies = off;
CREATE OR REPLACE FUNCTION public.audit_store()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$ BEGIN RETURN NULL; END $function$;
SET check_function_bodies = off;
CREATE OR REPLACE PROCEDURE public.close_store(IN p_store integer, VARIADIC p_reasons text[])
 LANGUAGE plpgsql
AS $procedure$
BEGIN
    UPDATE staff SET active = false WHERE store_id = p_store;
END
$procedure$;
SET check_function_bodies = off;
CREATE OR REPLACE FUNCTION public.staff_of(p_store integer, OUT staff_id bigint, INOUT note text)
 RETURNS SETOF record
 LANGUAGE sql
 STABLE
AS $function$ SELECT id, note FROM staff WHERE store_id = p_store $function$;
SET check_function_bodies = off;
CREATE OR REPLACE FUNCTION public.store_count()
 RETURNS bigint
 LANGUAGE sql
 STABLE
BEGIN ATOMIC
 SELECT count(*) AS count
    FROM public.store;
END;
SET check_function_bodies = off;
CREATE OR REPLACE FUNCTION public.store_names()
 RETURNS TABLE(id integer, name character varying)
 LANGUAGE sql
 STABLE
AS $function$ SELECT id, name FROM store $function$;
SET check_function_bodies = off;
CREATE OR REPLACE FUNCTION public.touch_staff()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'public'
AS $function$
BEGIN
    NEW.name := trim(NEW.name);
    RETURN NEW;
END
$function$;
SET check_function_bodies = off;
CREATE AGGREGATE public.text_concat(text) (
    SFUNC = textcat,
    STYPE = text,
    INITCOND = ''
);
CREATE VIEW "inventory"."low_stock" ("warehouse_code", "store_id", "quantity") AS SELECT stock.warehouse_code,
    stock.store_id,
    stock.quantity
   FROM inventory.stock
  WHERE stock.quantity < 5;
CREATE VIEW "public"."active_staff" ("id", "store_id", "name") AS SELECT staff.id,
    staff.store_id,
    staff.name
   FROM public.staff
  WHERE staff.active;
COMMENT ON VIEW "public"."active_staff" IS 'only active staff';
CREATE VIEW "public"."big_stores" ("id", "name", "manager_id") WITH (security_barrier=true) AS SELECT store.id,
    store.name,
    store.manager_id
   FROM public.store
  WHERE store.id > 10 WITH CASCADED CHECK OPTION;
CREATE VIEW "public"."local_staff" ("id", "store_id", "name") AS SELECT active_staff.id,
    active_staff.store_id,
    active_staff.name
   FROM public.active_staff
  WHERE active_staff.store_id = 1 WITH LOCAL CHECK OPTION;
CREATE MATERIALIZED VIEW "public"."store_headcount" ("store_id", "headcount") AS SELECT s.id AS store_id,
    count(f.id) AS headcount
   FROM public.store s
     LEFT JOIN public.staff f ON f.store_id = s.id
  GROUP BY s.id;
COMMENT ON MATERIALIZED VIEW "public"."store_headcount" IS 'refresh nightly';
CREATE UNIQUE INDEX "store_headcount_store" ON "public"."store_headcount" ("store_id");
CREATE TRIGGER staff_touch BEFORE INSERT OR UPDATE OF name ON public.staff FOR EACH ROW WHEN ((new.name IS NOT NULL)) EXECUTE FUNCTION public.touch_staff();
COMMENT ON TRIGGER "staff_touch" ON "public"."staff" IS 'normalise names';
CREATE TRIGGER store_audit AFTER INSERT OR DELETE ON public.store FOR EACH STATEMENT EXECUTE FUNCTION public.audit_store();
ALTER TABLE "public"."scratch" ENABLE ROW LEVEL SECURITY;
CREATE POLICY "scratch_guard" ON "public"."scratch" AS RESTRICTIVE FOR ALL TO PUBLIC USING (v IS NOT NULL);
CREATE POLICY "scratch_own" ON "public"."scratch" FOR UPDATE TO PUBLIC USING (k = CURRENT_USER) WITH CHECK (k <> ''::text);
SELECT setval('"public"."invoice_no"', 1050, false);
ALTER SEQUENCE "public"."staff_badge_seq" OWNED BY "public"."staff"."name";
SELECT setval('"public"."staff_badge_seq"', 1, false);
ALTER TABLE "public"."all_types" ALTER COLUMN "id" RESTART WITH 100;
ALTER TABLE "public"."booking" ALTER COLUMN "id" RESTART WITH 1;
SELECT setval(pg_get_serial_sequence('"public"."customer"', 'id'), 42, false);
SELECT setval(pg_get_serial_sequence('"public"."staff"', 'id'), 1, false);
ALTER TABLE "public"."store" ALTER COLUMN "id" RESTART WITH 1;

-- translation report: 0 item(s)
