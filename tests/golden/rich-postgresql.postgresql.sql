-- pre-data
CREATE TYPE "public"."mood" AS ENUM ('sad', 'ok', 'happy');
CREATE SEQUENCE "public"."ticket_seq" INCREMENT BY 5 START WITH 100;
CREATE TABLE "public"."posts" (
  "id" serial NOT NULL,
  "user_id" bigint NOT NULL,
  "title" character varying(200) NOT NULL,
  "body" text,
  "created" timestamp(3) without time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
  "rating" real,
  "data" bytea,
  CONSTRAINT "posts_pkey" PRIMARY KEY ("id")
);
CREATE TABLE "public"."users" (
  "id" bigint GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1) NOT NULL,
  "uid" uuid DEFAULT gen_random_uuid() NOT NULL,
  "login" text NOT NULL,
  "mood" mood DEFAULT 'ok',
  "tags" text[],
  "ip" inet,
  "net" cidr,
  "settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
  "seen_at" timestamp with time zone DEFAULT CURRENT_TIMESTAMP,
  "score" numeric,
  "active" boolean DEFAULT TRUE NOT NULL,
  "bio" character varying,
  "span" int4range,
  "wait" interval,
  "login_lower" text GENERATED ALWAYS AS (lower(login)) STORED,
  CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);
-- post-data
CREATE INDEX "posts_user_created" ON "public"."posts" ("user_id", "created" DESC) INCLUDE ("title");
ALTER TABLE "public"."users" ADD CONSTRAINT "users_login_key" UNIQUE ("login");
ALTER TABLE "public"."users" ADD CONSTRAINT "users_login_check" CHECK (length(login) > 2);
ALTER TABLE "public"."users" ADD CONSTRAINT "users_mood_check" CHECK ((mood)::text = ANY ((ARRAY['ok'::character varying, 'happy'::character varying, 'sad'::character varying])::text[]));
ALTER TABLE "public"."users" ADD CONSTRAINT "users_login_re" CHECK (login ~ '^[a-z]+$'::text);
CREATE INDEX "idx_active_login" ON "public"."users" ("login") WHERE active;
CREATE INDEX "idx_tags" ON "public"."users" USING gin ("tags");
CREATE INDEX "idx_lower_login" ON "public"."users" ((lower(login)));
COMMENT ON TABLE "public"."users" IS 'Application users';
COMMENT ON COLUMN "public"."users"."bio" IS 'free text';
ALTER TABLE "public"."posts" ADD CONSTRAINT "posts_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "public"."users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION DEFERRABLE;
SET check_function_bodies = off;
CREATE OR REPLACE FUNCTION public.touch()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$BEGIN NEW.created := now(); RETURN NEW; END$function$;
CREATE VIEW "public"."active_users" AS SELECT users.id,
    users.login
   FROM users
  WHERE users.active;
CREATE TRIGGER posts_touch BEFORE UPDATE ON public.posts FOR EACH ROW EXECUTE FUNCTION touch();
SELECT setval('"public"."ticket_seq"', 250, false);
SELECT setval(pg_get_serial_sequence('"public"."posts"', 'id'), 7, false);
ALTER TABLE "public"."users" ALTER COLUMN "id" RESTART WITH 42;

-- translation report: 0 item(s)
