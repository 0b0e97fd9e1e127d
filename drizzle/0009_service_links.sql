CREATE TABLE "service_links" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer NOT NULL,
	"from_service" text NOT NULL,
	"from_channel" text NOT NULL,
	"to_service" text NOT NULL,
	"to_channel" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "service_links_ends_key" ON "service_links" USING btree ("tenant_id","from_service","from_channel","to_service","to_channel");