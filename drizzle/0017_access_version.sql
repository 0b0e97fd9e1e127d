CREATE TABLE "access_version" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
-- Microseconds since 1970 at the least: a database made again (dropped and restored, say) never repeats a version a
-- console may still hold answers for, since it starts from the clock, not from 0.
INSERT INTO "access_version" ("id", "version") VALUES (1, (extract(epoch from clock_timestamp()) * 1000000)::bigint) ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Any write to who may do what moves the version, in the writer's transaction: a console that kept what it read of
-- these tables at one version reads them again once it sees another (server/repo/kept-reads.ts). Per statement, not per
-- row: a write of many rows moves it once, and a statement that changed nothing moves it too (a harmless extra read).
-- Before the statement, so a writer takes the version's lock before any row lock (a cycle with a writer holding a row
-- and waiting for the version cannot form); the repositories' transactions take it first of all (tenants.ts).
CREATE FUNCTION "public"."keelson_access_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "public"."access_version" SET "version" = greatest("version" + 1, (extract(epoch from clock_timestamp()) * 1000000)::bigint) WHERE "id" = 1;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "tenants_access_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenants" FOR EACH STATEMENT EXECUTE FUNCTION "public"."keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_members_access_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_members" FOR EACH STATEMENT EXECUTE FUNCTION "public"."keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_namespaces_access_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_namespaces" FOR EACH STATEMENT EXECUTE FUNCTION "public"."keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_invitations_access_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_invitations" FOR EACH STATEMENT EXECUTE FUNCTION "public"."keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_accounts_access_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_accounts" FOR EACH STATEMENT EXECUTE FUNCTION "public"."keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_environments_access_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_environments" FOR EACH STATEMENT EXECUTE FUNCTION "public"."keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "users_access_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "users" FOR EACH STATEMENT EXECUTE FUNCTION "public"."keelson_access_changed"();
--> statement-breakpoint
-- They fire in a replica session too (session_replication_role = replica, as bulk loaders set): a write no console hears of is the one thing this must not allow.
ALTER TABLE "tenants" ENABLE ALWAYS TRIGGER "tenants_access_changed";
--> statement-breakpoint
ALTER TABLE "tenant_members" ENABLE ALWAYS TRIGGER "tenant_members_access_changed";
--> statement-breakpoint
ALTER TABLE "tenant_namespaces" ENABLE ALWAYS TRIGGER "tenant_namespaces_access_changed";
--> statement-breakpoint
ALTER TABLE "tenant_invitations" ENABLE ALWAYS TRIGGER "tenant_invitations_access_changed";
--> statement-breakpoint
ALTER TABLE "tenant_accounts" ENABLE ALWAYS TRIGGER "tenant_accounts_access_changed";
--> statement-breakpoint
ALTER TABLE "tenant_environments" ENABLE ALWAYS TRIGGER "tenant_environments_access_changed";
--> statement-breakpoint
ALTER TABLE "users" ENABLE ALWAYS TRIGGER "users_access_changed";
