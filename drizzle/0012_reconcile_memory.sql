CREATE TABLE "reconcile_memory" (
	"installation" text PRIMARY KEY NOT NULL,
	"generation" integer NOT NULL,
	"count" integer NOT NULL,
	"last_at" timestamp with time zone NOT NULL,
	"on_failed" boolean NOT NULL
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "subject" text;