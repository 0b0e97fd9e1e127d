'use client';
import Link from '@/components/ui/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';
import { signOut } from 'next-auth/react';

const LINKS = [
  { href: '/objects', label: 'Objects' },
  { href: '/claims', label: 'Claims' },
  { href: '/graphs', label: 'Graphs' },
  { href: '/installations', label: 'Installations' },
  // "DM": Capact has a `Type` kind of its own.
  { href: '/types', label: 'DM types' },
  { href: '/revisions', label: 'Revisions' },
  { href: '/history', label: 'History' },
  { href: '/tenants', label: 'Tenants' },
  { href: '/users', label: 'Users', domainAdminOnly: true },
  { href: '/profile', label: 'Profile' },
];

export function Nav({ user, domainAdmin = false }: { user: { name: string; provider: string }; domainAdmin?: boolean }) {
  const path = usePathname();
  // Narrow screens: the links fold into a menu (CSS shows the button there only).
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [path]);
  return (
    <nav className={`sidebar${open ? ' menu-open' : ''}`} aria-label="Main">
      <Link href="/objects" className="brand">
        <span className="brand-mark" aria-hidden /> Keelson
      </Link>
      <button type="button" className="btn btn-small menu-button" aria-expanded={open} aria-controls="nav-links" onClick={() => setOpen((o) => !o)}>
        Menu
      </button>
      <div className="nav-links" id="nav-links">
        {LINKS.filter((l) => !l.domainAdminOnly || domainAdmin).map((l) => (
          <Link key={l.href} href={l.href} className="nav-link" aria-current={path.startsWith(l.href) ? 'page' : undefined}>
            {l.label}
          </Link>
        ))}
        {/* A page of the API route, not of the console: a full load, and its own link back. */}
        <a href="/api/1.0-beta/docs" className="nav-link" data-testid="rest-docs-link">
          REST API docs
        </a>
      </div>
      <div className="sidebar-foot">
        <div>
          <span className="signed-in-label">Signed in as </span>
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
