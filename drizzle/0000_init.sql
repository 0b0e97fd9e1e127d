CREATE TABLE "policy_generations" (
	"generation" integer PRIMARY KEY NOT NULL,
	"author" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changes" jsonb NOT NULL,
	"restored_from" integer
);
--> statement-breakpoint
CREATE TABLE "policy_head" (
	"id" integer PRIMARY KEY NOT NULL,
	"generation" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "policy_objects" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"namespace" text NOT NULL,
	"name" text NOT NULL,
	"text" text NOT NULL,
	"spec" jsonb NOT NULL,
	"created_generation" integer NOT NULL,
	"superseded_generation" integer
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"provider" text NOT NULL,
	"labels" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_sign_in_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "policy_objects_live_key" ON "policy_objects" USING btree ("kind","namespace","name") WHERE "policy_objects"."superseded_generation" is null;--> statement-breakpoint
CREATE INDEX "policy_objects_created_idx" ON "policy_objects" USING btree ("created_generation");--> statement-breakpoint
CREATE INDEX "policy_objects_key_idx" ON "policy_objects" USING btree ("kind","namespace","name","created_generation");