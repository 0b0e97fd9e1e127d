import type { Metadata } from 'next';
import { TenantsList } from '@/components/tenants/tenants-list';

export const metadata: Metadata = { title: 'Tenants' };

export default function TenantsPage() {
  return <TenantsList />;
}
