import type { Metadata } from 'next';
import { RoleMap } from '@/components/users/role-map';

export const metadata: Metadata = { title: 'Users and roles' };

export default function UsersPage() {
  return <RoleMap />;
}
