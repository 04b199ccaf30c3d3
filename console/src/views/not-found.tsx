import { PageHeader } from '../components/page-header.js';
import { Link } from '../router.js';

export function NotFound({ what = 'There is no console page at this address.' }: { what?: string }) {
  return (
    <>
      <PageHeader title="Not found">{what}</PageHeader>
      <p>
        <Link to="/">Go to the overview</Link>
      </p>
    </>
  );
}
