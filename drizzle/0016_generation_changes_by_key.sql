CREATE TABLE "policy_changes" (
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"generation" integer NOT NULL,
	"namespace" text NOT NULL,
	CONSTRAINT "policy_changes_kind_name_generation_namespace_pk" PRIMARY KEY("kind","name","generation","namespace")
);
--> statement-breakpoint
DROP INDEX "policy_generations_changes_idx";--> statement-breakpoint
ALTER TABLE "policy_changes" ADD CONSTRAINT "policy_changes_generation_policy_generations_generation_fk" FOREIGN KEY ("generation") REFERENCES "public"."policy_generations"("generation") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Generations written before this table: their changes, a row each (as restore does for a backup made before it).
INSERT INTO "policy_changes" ("kind", "name", "generation", "namespace")
SELECT c->>'kind', c->>'name', g."generation", c->>'namespace' FROM "policy_generations" g CROSS JOIN jsonb_array_elements(g."changes") c
ON CONFLICT DO NOTHING;
