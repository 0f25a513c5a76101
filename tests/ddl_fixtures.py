"""Hand-built schema documents for the schema-load tests (rich MySQL and PostgreSQL sources)."""

from __future__ import annotations

from dbjson import model as m


def _src(engine: str, version: str, database: str) -> m.Source:
    return m.Source(engine=engine, server_version=version, database=database, dumped_at="2026-01-01T00:00:00Z")


def _col(name: str, ordinal: int, t: m.Type, raw: str, engine: str, **kw: object) -> m.Column:
    return m.Column(name=name, ordinal=ordinal, type=t, native=m.NativeType(engine=engine, raw=raw), **kw)  # type: ignore[arg-type]


def mysql_document(engine: str = "mysql") -> m.Database:
    """A MySQL (or MariaDB) shop: unsigned keys, enum/set, on-update, json, fulltext, FK cycle."""
    E = engine
    coll = "utf8mb4_0900_ai_ci" if engine == "mysql" else "utf8mb4_uca1400_ai_ci"
    customers = m.Table(
        name="customers",
        columns=(
            _col(
                "id",
                1,
                m.Type(kind="integer", bits=32, unsigned=True),
                "int unsigned",
                E,
                nullable=False,
                identity=m.Identity(kind="auto_increment", next_value=1001),
            ),
            _col(
                "email",
                2,
                m.Type(kind="varchar", length=191),
                "varchar(191)",
                E,
                nullable=False,
                charset="utf8mb4",
                collation=coll,
            ),
            _col(
                "name",
                3,
                m.Type(kind="varchar", length=100),
                "varchar(100)",
                E,
                nullable=True,
                charset="utf8mb4",
                collation=coll,
                comment="display name",
            ),
            _col(
                "status",
                4,
                m.Type(kind="enum", values=("active", "blocked", "it's")),
                "enum('active','blocked','it''s')",
                E,
                nullable=False,
                default=m.Default(kind="literal", value="active"),
                charset="utf8mb4",
                collation=coll,
            ),
            _col(
                "tags",
                5,
                m.Type(kind="set", values=("a", "b", "c")),
                "set('a','b','c')",
                E,
                charset="utf8mb4",
                collation=coll,
            ),
            _col(
                "is_vip",
                6,
                m.Type(kind="boolean"),
                "tinyint(1)",
                E,
                nullable=False,
                default=m.Default(kind="literal", value="0"),
            ),
            _col(
                "balance",
                7,
                m.Type(kind="decimal", precision=12, scale=2),
                "decimal(12,2)",
                E,
                default=m.Default(kind="literal", value="0.00"),
            ),
            _col(
                "created_at",
                8,
                m.Type(kind="timestamp", fsp=0, with_timezone=True),
                "timestamp",
                E,
                nullable=False,
                default=m.Default(kind="function", value="current_timestamp"),
            ),
            _col(
                "updated_at",
                9,
                m.Type(kind="timestamp", fsp=3),
                "datetime(3)",
                E,
                nullable=True,
                default=m.Default(kind="function", value="current_timestamp", fsp=3),
                on_update=m.Default(kind="function", value="current_timestamp", fsp=3),
            ),
            _col(
                "profile",
                10,
                m.Type(kind="json", binary=engine == "mysql"),
                "json" if engine == "mysql" else "longtext",
                E,
            ),
            _col(
                "big_counter",
                11,
                m.Type(kind="integer", bits=64, unsigned=True),
                "bigint unsigned",
                E,
                nullable=False,
                default=m.Default(kind="literal", value="0"),
            ),
            _col("birth_year", 12, m.Type(kind="year"), "year", E),
            _col("notes", 13, m.Type(kind="text", max_bytes=65535), "text", E, charset="utf8mb4", collation=coll),
            _col("referrer_id", 14, m.Type(kind="integer", bits=32, unsigned=True), "int unsigned", E),
            _col(
                "full_name",
                15,
                m.Type(kind="varchar", length=250),
                "varchar(250)",
                E,
                generated=m.Generated(
                    expression="concat(`name`,_utf8mb4' <',`email`,_utf8mb4'>')", stored=False, dialect=E
                ),
                charset="utf8mb4",
                collation=coll,
            ),
        ),
        primary_key=m.PrimaryKey(name="PRIMARY", columns=("id",)),
        uniques=(m.UniqueConstraint(name="uq_email", columns=("email",)),),
        foreign_keys=(
            m.ForeignKey(
                name="fk_customers_referrer",
                columns=("referrer_id",),
                ref_table="customers",
                ref_columns=("id",),
                on_delete="SET NULL",
            ),
        ),
        checks=(m.Check(name="customers_chk_balance", expression="(`balance` >= -(1000))", dialect=E),),
        indexes=(
            m.Index(name="idx_name", parts=(m.IndexPart(column="name", length=20),)),
            m.Index(name="ft_notes", parts=(m.IndexPart(column="notes"),), kind="fulltext"),
            m.Index(
                name="idx_created", parts=(m.IndexPart(column="created_at", descending=True),), comment="recent first"
            ),
        ),
        comment="People who buy things",
        options={"mysql": {"engine": "InnoDB", "charset": "utf8mb4", "collation": coll}},
    )
    orders = m.Table(
        name="orders",
        columns=(
            _col(
                "id",
                1,
                m.Type(kind="integer", bits=64, unsigned=True),
                "bigint unsigned",
                E,
                nullable=False,
                identity=m.Identity(kind="auto_increment", next_value=5000),
            ),
            _col("customer_id", 2, m.Type(kind="integer", bits=32, unsigned=True), "int unsigned", E, nullable=False),
            _col("total", 3, m.Type(kind="decimal", precision=10, scale=2), "decimal(10,2)", E, nullable=False),
            _col(
                "ordered_on",
                4,
                m.Type(kind="date"),
                "date",
                E,
                default=m.Default(kind="function", value="current_date"),
            ),
            _col(
                "ref",
                5,
                m.Type(kind="char", length=36),
                "char(36)",
                E,
                default=m.Default(kind="function", value="uuid"),
                charset="utf8mb4",
                collation=coll,
            ),
            _col(
                "flags", 6, m.Type(kind="bit", length=3), "bit(3)", E, default=m.Default(kind="literal", value="b'101'")
            ),
            _col("weight", 7, m.Type(kind="float", bits=64), "double", E),
            _col("payload", 8, m.Type(kind="blob", max_bytes=16777215), "mediumblob", E),
            _col("last_item_id", 9, m.Type(kind="integer", bits=64, unsigned=True), "bigint unsigned", E),
        ),
        primary_key=m.PrimaryKey(name="PRIMARY", columns=("id",)),
        foreign_keys=(
            m.ForeignKey(
                name="fk_orders_customer",
                columns=("customer_id",),
                ref_table="customers",
                ref_columns=("id",),
                on_delete="CASCADE",
                on_update="RESTRICT",
            ),
            m.ForeignKey(
                name="fk_orders_last_item", columns=("last_item_id",), ref_table="order_items", ref_columns=("id",)
            ),
        ),
        indexes=(
            m.Index(name="idx_name", parts=(m.IndexPart(column="customer_id"), m.IndexPart(column="ordered_on"))),
        ),
        options={"mysql": {"engine": "InnoDB", "charset": "utf8mb4", "collation": coll}},
    )
    items = m.Table(
        name="order_items",
        columns=(
            _col(
                "id",
                1,
                m.Type(kind="integer", bits=64, unsigned=True),
                "bigint unsigned",
                E,
                nullable=False,
                identity=m.Identity(kind="auto_increment"),
            ),
            _col("order_id", 2, m.Type(kind="integer", bits=64, unsigned=True), "bigint unsigned", E, nullable=False),
            _col(
                "qty",
                3,
                m.Type(kind="integer", bits=16, unsigned=True),
                "smallint unsigned",
                E,
                nullable=False,
                default=m.Default(kind="literal", value="1"),
            ),
            _col("price", 4, m.Type(kind="decimal", precision=10, scale=2), "decimal(10,2)", E, nullable=False),
            _col(
                "amount",
                5,
                m.Type(kind="decimal", precision=12, scale=2),
                "decimal(12,2)",
                E,
                generated=m.Generated(expression="(`qty` * `price`)", stored=True, dialect=E),
            ),
        ),
        primary_key=m.PrimaryKey(name="PRIMARY", columns=("id",)),
        foreign_keys=(
            m.ForeignKey(
                name="fk_items_order",
                columns=("order_id",),
                ref_table="orders",
                ref_columns=("id",),
                on_delete="CASCADE",
            ),
        ),
        checks=(
            m.Check(name="order_items_chk_1", expression="(`qty` > 0)", dialect=E),
            m.Check(name="order_items_chk_price", expression="(`price` >= 0)", dialect=E, enforced=engine != "mysql"),
        ),
        options={"mysql": {"engine": "InnoDB", "charset": "utf8mb4", "collation": coll}},
    )
    long_name = "a_table_with_a_really_long_name_that_goes_past_the_postgres_limit_x"
    longt = m.Table(
        name=long_name[:64],
        columns=(
            _col("id", 1, m.Type(kind="integer", bits=32), "int", E, nullable=False),
            _col("v", 2, m.Type(kind="varchar", length=10), "varchar(10)", E, charset="utf8mb4", collation=coll),
        ),
        primary_key=m.PrimaryKey(name="PRIMARY", columns=("id",)),
        indexes=(m.Index(name="idx_name", parts=(m.IndexPart(column="v"),)),),
        options={"mysql": {"engine": "InnoDB", "charset": "utf8mb4", "collation": coll}},
    )
    views = (
        m.View(
            name="vip_customers",
            dialect=E,
            definition="select `shop`.`customers`.`id` AS `id`,`shop`.`customers`.`email` AS `email` from `shop`.`customers` where (`shop`.`customers`.`is_vip` = 1)",
        ),
        m.View(
            name="order_totals",
            dialect=E,
            definition="select `o`.`customer_id` AS `customer_id`,sum(`o`.`total`) AS `total` from `shop`.`orders` `o` group by `o`.`customer_id`",
        ),
        m.View(name="weird", dialect=E, definition="select unix_timestamp() AS `now_ts`"),
    )
    trigger = m.Trigger(
        name="orders_bi",
        table="orders",
        timing="BEFORE",
        events=("INSERT",),
        dialect=E,
        body="SET NEW.total = ROUND(NEW.total, 2)",
        definition="CREATE DEFINER=`root`@`%` TRIGGER `orders_bi` BEFORE INSERT ON `orders` FOR EACH ROW SET NEW.total = ROUND(NEW.total, 2)",
    )
    routine = m.Routine(
        name="add_one",
        kind="function",
        arguments=(m.Argument(name="x", native="int"),),
        returns="int",
        body="RETURN x + 1",
        dialect=E,
        deterministic=True,
        definition="CREATE DEFINER=`root`@`%` FUNCTION `add_one`(x int) RETURNS int DETERMINISTIC RETURN x + 1",
    )
    schema = m.Schema(
        name="shop",
        tables=(customers, items, longt, orders),
        views=views,
        triggers=(trigger,),
        routines=(routine,),
        options={"mysql": {"charset": "utf8mb4", "collation": coll}},
    )
    return m.Database(
        source=_src(engine, "9.1.0" if engine == "mysql" else "10.11.9-MariaDB", "shop"), schemas=(schema,)
    )


def postgresql_document() -> m.Database:
    """A PostgreSQL app: enum type, identity, arrays, uuid, inet, jsonb, timestamptz, partial index."""
    E = "postgresql"
    mood = m.EnumType(name="mood", values=("sad", "ok", "happy"))
    users = m.Table(
        name="users",
        columns=(
            _col(
                "id",
                1,
                m.Type(kind="integer", bits=64),
                "bigint",
                E,
                nullable=False,
                identity=m.Identity(kind="identity", always=True, start=1, increment=1, next_value=42),
            ),
            _col(
                "uid",
                2,
                m.Type(kind="uuid"),
                "uuid",
                E,
                nullable=False,
                default=m.Default(kind="function", value="uuid"),
            ),
            _col("login", 3, m.Type(kind="text"), "text", E, nullable=False),
            _col(
                "mood",
                4,
                m.Type(kind="enum", values=("sad", "ok", "happy"), type_name="mood", type_schema="public"),
                "mood",
                E,
                default=m.Default(kind="literal", value="ok"),
            ),
            _col("tags", 5, m.Type(kind="array", element=m.Type(kind="text")), "text[]", E),
            _col("ip", 6, m.Type(kind="inet"), "inet", E),
            _col("net", 7, m.Type(kind="inet", network=True), "cidr", E),
            _col(
                "settings",
                8,
                m.Type(kind="json", binary=True),
                "jsonb",
                E,
                nullable=False,
                default=m.Default(kind="expression", value="'{}'::jsonb", dialect=E),
            ),
            _col(
                "seen_at",
                9,
                m.Type(kind="timestamp", fsp=6, with_timezone=True),
                "timestamp with time zone",
                E,
                default=m.Default(kind="function", value="current_timestamp"),
            ),
            _col("score", 10, m.Type(kind="decimal"), "numeric", E),
            _col(
                "active",
                11,
                m.Type(kind="boolean"),
                "boolean",
                E,
                nullable=False,
                default=m.Default(kind="literal", value="true"),
            ),
            _col("bio", 12, m.Type(kind="varchar"), "character varying", E, comment="free text"),
            _col("span", 13, m.Type(kind="range", subtype="int4"), "int4range", E),
            _col("wait", 14, m.Type(kind="interval", fsp=6), "interval", E),
            _col(
                "login_lower",
                15,
                m.Type(kind="text"),
                "text",
                E,
                generated=m.Generated(expression="lower(login)", stored=True, dialect=E),
            ),
        ),
        primary_key=m.PrimaryKey(name="users_pkey", columns=("id",)),
        uniques=(m.UniqueConstraint(name="users_login_key", columns=("login",)),),
        checks=(
            m.Check(name="users_login_check", expression="(length(login) > 2)", dialect=E),
            m.Check(
                name="users_mood_check",
                expression="((mood)::text = ANY ((ARRAY['ok'::character varying, 'happy'::character varying, 'sad'::character varying])::text[]))",
                dialect=E,
            ),
            m.Check(name="users_login_re", expression="(login ~ '^[a-z]+$'::text)", dialect=E),
        ),
        indexes=(
            m.Index(name="idx_active_login", parts=(m.IndexPart(column="login"),), where="active", dialect=E),
            m.Index(name="idx_tags", parts=(m.IndexPart(column="tags"),), kind="gin"),
            m.Index(name="idx_lower_login", parts=(m.IndexPart(expression="lower(login)"),), dialect=E),
        ),
        comment="Application users",
    )
    posts = m.Table(
        name="posts",
        columns=(
            _col(
                "id",
                1,
                m.Type(kind="integer", bits=32),
                "integer",
                E,
                nullable=False,
                identity=m.Identity(kind="serial", sequence="posts_id_seq", next_value=7),
            ),
            _col("user_id", 2, m.Type(kind="integer", bits=64), "bigint", E, nullable=False),
            _col("title", 3, m.Type(kind="varchar", length=200), "character varying(200)", E, nullable=False),
            _col("body", 4, m.Type(kind="text"), "text", E),
            _col(
                "created",
                5,
                m.Type(kind="timestamp", fsp=3),
                "timestamp(3) without time zone",
                E,
                nullable=False,
                default=m.Default(kind="function", value="current_timestamp"),
            ),
            _col("rating", 6, m.Type(kind="float", bits=32), "real", E),
            _col("data", 7, m.Type(kind="varbinary"), "bytea", E),
        ),
        primary_key=m.PrimaryKey(name="posts_pkey", columns=("id",)),
        foreign_keys=(
            m.ForeignKey(
                name="posts_user_id_fkey",
                columns=("user_id",),
                ref_table="users",
                ref_columns=("id",),
                on_delete="CASCADE",
                deferrable=True,
            ),
        ),
        indexes=(
            m.Index(
                name="posts_user_created",
                parts=(m.IndexPart(column="user_id"), m.IndexPart(column="created", descending=True)),
                include=("title",),
            ),
        ),
    )
    seq = m.Sequence(name="ticket_seq", start=100, increment=5, next_value=250)
    views = (
        m.View(
            name="active_users",
            dialect=E,
            definition=" SELECT users.id,\n    users.login\n   FROM users\n  WHERE users.active;",
        ),
    )
    func = m.Routine(
        name="touch",
        kind="function",
        returns="trigger",
        language="plpgsql",
        dialect=E,
        body="BEGIN NEW.created := now(); RETURN NEW; END",
        definition="CREATE OR REPLACE FUNCTION public.touch()\n RETURNS trigger\n LANGUAGE plpgsql\nAS $function$BEGIN NEW.created := now(); RETURN NEW; END$function$\n",
    )
    trig = m.Trigger(
        name="posts_touch",
        table="posts",
        timing="BEFORE",
        events=("UPDATE",),
        dialect=E,
        definition="CREATE TRIGGER posts_touch BEFORE UPDATE ON public.posts FOR EACH ROW EXECUTE FUNCTION touch()",
    )
    schema = m.Schema(
        name="public",
        tables=(posts, users),
        views=views,
        sequences=(seq,),
        enums=(mood,),
        routines=(func,),
        triggers=(trig,),
    )
    return m.Database(source=_src("postgresql", "15.8", "app"), schemas=(schema,))
