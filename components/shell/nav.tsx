'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { signOut } from 'next-auth/react';

const LINKS = [
  { href: '/objects', label: 'Objects' },
  { href: '/claims', label: 'Claims' },
  { href: '/graphs', label: 'Graphs' },
  { href: '/revisions', label: 'Revisions' },
  { href: '/history', label: 'History' },
  { href: '/tenants', label: 'Tenants' },
  { href: '/users', label: 'Users' },
  { href: '/profile', label: 'Profile' },
];

export function Nav({ user }: { user: { name: string; provider: string } }) {
  const path = usePathname();
  return (
    <nav className="sidebar" aria-label="Main">
      <Link href="/objects" className="brand">
        <span className="brand-mark" aria-hidden /> Keelson
      </Link>
      {LINKS.map((l) => (
        <Link key={l.href} href={l.href} className="nav-link" aria-current={path.startsWith(l.href) ? 'page' : undefined}>
          {l.label}
        </Link>
      ))}
      <div className="sidebar-foot">
        <div>
          Signed in as{' '}
          <Link href="/profile" className="who" data-testid="current-user">
            {user.name}
          </Link>
        </div>
        <button type="button" className="btn btn-small" onClick={() => signOut({ callbackUrl: '/signin' })}>
          Sign out
        </button>
      </div>
    </nav>
  );
}
