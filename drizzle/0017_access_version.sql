CREATE TABLE "access_version" (
	"id" integer PRIMARY KEY NOT NULL,
	"version" integer NOT NULL
);
--> statement-breakpoint
INSERT INTO "access_version" ("id", "version") VALUES (1, 0) ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Any write to who may do what moves the version, in the writer's transaction: a console that kept what it read of
-- these tables at one version reads them again once it sees another (server/repo/kept-reads.ts). Per statement, not per
-- row: a write of many rows moves it once, and a statement that changed nothing moves it too (a harmless extra read).
CREATE FUNCTION "keelson_access_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "access_version" SET "version" = "version" + 1 WHERE "id" = 1;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "tenants_access_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenants" FOR EACH STATEMENT EXECUTE FUNCTION "keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_members_access_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_members" FOR EACH STATEMENT EXECUTE FUNCTION "keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_namespaces_access_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_namespaces" FOR EACH STATEMENT EXECUTE FUNCTION "keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_invitations_access_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_invitations" FOR EACH STATEMENT EXECUTE FUNCTION "keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_accounts_access_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_accounts" FOR EACH STATEMENT EXECUTE FUNCTION "keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "tenant_environments_access_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "tenant_environments" FOR EACH STATEMENT EXECUTE FUNCTION "keelson_access_changed"();
--> statement-breakpoint
CREATE TRIGGER "users_access_changed" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "users" FOR EACH STATEMENT EXECUTE FUNCTION "keelson_access_changed"();
