import { RequestPage, requestMetadata } from '@/components/claims/request-page';

type Props = { params: Promise<{ namespace: string; name: string }>; searchParams: Promise<{ generation?: string }> };

export const generateMetadata = ({ params }: Props) => requestMetadata('deployment', params);

export default function Page(props: Props) {
  return <RequestPage kind="deployment" {...props} />;
}
