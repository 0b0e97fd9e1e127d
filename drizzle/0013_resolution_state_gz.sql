ALTER TABLE "resolutions" ALTER COLUMN "state" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "resolutions" ADD COLUMN "state_gz" text;