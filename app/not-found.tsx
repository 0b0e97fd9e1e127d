import Link from '@/components/ui/link';

/** Unknown addresses: Keelson's own 404 page. */
export default function NotFound() {
  return (
    <main className="signin" id="main">
      <div className="panel signin-card" data-testid="not-found">
        <h1 className="state-title">Page not found</h1>
        <p>Keelson has no page at this address.</p>
        <p>
          <Link href="/objects">Go to the console</Link>
        </p>
      </div>
    </main>
  );
}
