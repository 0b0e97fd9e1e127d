-- Ending a session (sign-out, a user's removal, an admin's revoke) moves the access version in the writer's
-- transaction, as writes to the other access tables do (0017): a console that kept what it read of a session reads it
-- again on its next request, so an ended session stops counting on every console sharing the database.
CREATE TRIGGER "sessions_access_changed" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "sessions" FOR EACH STATEMENT EXECUTE FUNCTION "public"."keelson_access_changed"();
--> statement-breakpoint
ALTER TABLE "sessions" ENABLE ALWAYS TRIGGER "sessions_access_changed";
