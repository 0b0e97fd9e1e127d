CREATE TABLE "tenant_resources" (
	"id" serial PRIMARY KEY NOT NULL,
	"tenant_id" integer NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"spec" jsonb NOT NULL,
	"sealed" text,
	"claim" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "tenant_resources_name_key" ON "tenant_resources" USING btree ("tenant_id","kind","name");--> statement-breakpoint
CREATE UNIQUE INDEX "tenant_resources_claim_key" ON "tenant_resources" USING btree ("claim");