import Link from '@/components/ui/link';

/** A console page about something that does not exist: HTTP 404, inside the console, with a way back. */
export default function ConsoleNotFound() {
  return (
    <div className="state" data-testid="not-found">
      <h1 className="state-title">Not found</h1>
      <p>There is no such object, revision, claim or tenant — it may have been deleted, or the link is wrong.</p>
      <p>
        <Link href="/objects">Objects</Link> · <Link href="/revisions">Revisions</Link> · <Link href="/claims">Claims</Link> · <Link href="/tenants">Tenants</Link>
      </p>
    </div>
  );
}
