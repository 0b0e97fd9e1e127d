CREATE TABLE "apply_steps" (
	"revision_id" integer NOT NULL,
	"step_index" integer NOT NULL,
	"key" text NOT NULL,
	"action" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "apply_steps_revision_id_step_index_pk" PRIMARY KEY("revision_id","step_index")
);
--> statement-breakpoint
CREATE TABLE "deployment_head" (
	"id" integer PRIMARY KEY NOT NULL,
	"accepted_revision_id" integer,
	"applied_revision_id" integer
);
--> statement-breakpoint
CREATE TABLE "instance_states" (
	"key" text PRIMARY KEY NOT NULL,
	"revision_id" integer NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"deploy_name" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" serial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"revision_id" integer,
	"status" text DEFAULT 'queued' NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_by" text,
	"locked_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "revision_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"revision_id" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"actor" text,
	"section" text,
	"step" integer,
	"message" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "revision_sections" (
	"revision_id" integer NOT NULL,
	"namespace" text NOT NULL,
	"status" text NOT NULL,
	"over_marks" boolean DEFAULT false NOT NULL,
	"counts" jsonb NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"comment" text,
	CONSTRAINT "revision_sections_revision_id_namespace_pk" PRIMARY KEY("revision_id","namespace")
);
--> statement-breakpoint
CREATE TABLE "revisions" (
	"id" serial PRIMARY KEY NOT NULL,
	"generation" integer NOT NULL,
	"base_revision_id" integer,
	"status" text NOT NULL,
	"author" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"applied_at" timestamp with time zone,
	"rollback_of" integer,
	"counts" jsonb NOT NULL,
	"cost" jsonb NOT NULL,
	"quota" jsonb NOT NULL,
	"plan" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "jobs_pending_idx" ON "jobs" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "revision_events_revision_idx" ON "revision_events" USING btree ("revision_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "revisions_generation_key" ON "revisions" USING btree ("generation");--> statement-breakpoint
CREATE INDEX "revisions_status_idx" ON "revisions" USING btree ("status");