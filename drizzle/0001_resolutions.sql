CREATE TABLE "resolutions" (
	"generation" integer PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"duration_ms" integer NOT NULL,
	"claims_total" integer NOT NULL,
	"claims_resolved" integer NOT NULL,
	"claims_rejected" integer NOT NULL,
	"claims_error" integer NOT NULL,
	"instances" integer NOT NULL,
	"state" jsonb NOT NULL
);
