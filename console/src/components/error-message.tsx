import type { ApiRequestError } from '../api/errors.js';

/** An API error as a person reads it: what failed, which fields, and the request id to quote. */
export function ErrorMessage({
  error,
  title = 'The request failed',
}: {
  error: ApiRequestError;
  title?: string;
}) {
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">
        {title}: {error.message}
      </p>
      {error.details.length > 0 && (
        <ul className="notice-details">
          {error.details.map((detail) => (
            <li key={`${detail.param ?? ''}:${detail.field}:${detail.code}`}>
              <code>{detail.field}</code> {detail.message}
            </li>
          ))}
        </ul>
      )}
      <p className="notice-meta">
        {error.status > 0 && <>HTTP {error.status} · </>}
        code <code>{error.code}</code>
        {error.requestId && (
          <>
            {' '}
            · request id <code className="request-id">{error.requestId}</code>
          </>
        )}
      </p>
    </div>
  );
}
