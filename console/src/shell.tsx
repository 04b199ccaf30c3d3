/**
 * The signed-in frame: header with the account switcher and sign-out, the navigation of the views
 * this server offers, and the current view. On a narrow screen the navigation folds behind a
 * Menu button.
 */
import { Suspense, useEffect, useState } from 'react';
import type { Account } from './api/types.js';
import { Loading } from './components/status.js';
import { useConsole } from './context.js';
import { fillPattern, Link, matchPattern, navigate, useLocation } from './router.js';
import { NAV_SECTIONS, ROUTES, type ViewRoute } from './routes.js';
import { NotFound } from './views/not-found.js';

const REMEMBERED_ACCOUNT = 'posture.account';

function remember(accountId: string): void {
  try {
    window.localStorage.setItem(REMEMBERED_ACCOUNT, accountId);
  } catch {
    // storage disabled: the choice lasts until the next page load only
  }
}

function rememberedAccount(accounts: Account[]): Account | undefined {
  let id: string | null = null;
  try {
    id = window.localStorage.getItem(REMEMBERED_ACCOUNT);
  } catch {
    // storage disabled: fall back to the first account
  }
  return accounts.find((account) => account.id === id) ?? accounts[0];
}

function resolve(path: string): { route: ViewRoute; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    const params = matchPattern(route.pattern, path);
    if (params) return { route, params };
  }
  return null;
}

export function Shell() {
  const { accounts, offers, signOut } = useConsole();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const match = resolve(location.path);
  const fromUrl = match?.params.accountId;
  const account = fromUrl ? accounts.find((a) => a.id === fromUrl) : rememberedAccount(accounts);

  useEffect(() => {
    if (account) remember(account.id);
  }, [account]);

  // The console's home is the overview of the selected account.
  useEffect(() => {
    if ((location.path === '/' || location.path === '/sign-in') && account) {
      navigate(`/accounts/${encodeURIComponent(account.id)}`, { replace: true });
    }
  }, [location.path, account]);

  // Close the narrow-screen menu after following a link.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on navigation
  useEffect(() => setMenuOpen(false), [location.href]);

  function switchAccount(id: string) {
    remember(id);
    const pattern = match?.route.pattern ?? '';
    const params = pattern.split('/').filter((part) => part.startsWith(':'));
    if (match && params.length === 0) {
      navigate(location.href, { replace: true }); // a tenant-wide view: stay, with the new account selected
    } else if (match && params.length === 1 && params[0] === ':accountId') {
      navigate(fillPattern(pattern, { accountId: id })); // the same list, in the other account
    } else {
      navigate(fillPattern('accounts/:accountId', { accountId: id })); // ids of a detail view belong to the old account
    }
  }

  const offered = (route: ViewRoute) => route.needs.every(offers);
  let content = <NotFound />;
  if (match && account && offered(match.route)) {
    const View = match.route.view;
    content = <View account={account} params={match.params} />;
  } else if (match && !account) {
    content = <NotFound what="This account does not exist, or your access key cannot see it." />;
  } else if (match) {
    content = <NotFound what="This view needs API operations this server does not offer yet." />;
  }

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="button button-quiet menu-button"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <Link to={account ? `/accounts/${encodeURIComponent(account.id)}` : '/'} className="brand">
          Posture
        </Link>
        <div className="topbar-end">
          {accounts.length > 1 ? (
            <div className="account-switch">
              <label htmlFor="account-switch">Account</label>
              <select
                id="account-switch"
                value={account?.id ?? ''}
                onChange={(event) => switchAccount(event.target.value)}
              >
                {!account && <option value="">—</option>}
                {accounts.map((a) => (
                  <option key={a.id} value={a.id}>
                    {a.name}
                  </option>
                ))}
              </select>
            </div>
          ) : (
            account && (
              <span className="account-name">
                Account <strong>{account.name}</strong>
              </span>
            )
          )}
          <button type="button" className="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="nav" className={menuOpen ? 'sidebar sidebar-open' : 'sidebar'} aria-label="Views">
        {NAV_SECTIONS.filter((section) =>
          ROUTES.some((route) => route.nav?.section === section && offered(route)),
        ).map((section) => (
          <div key={section} className="nav-section">
            <h2 className="nav-heading">{section}</h2>
            <ul>
              {ROUTES.filter((route) => route.nav?.section === section && offered(route)).map((route) => (
                <li key={route.id}>
                  <Link to={fillPattern(route.pattern, { accountId: account?.id ?? '' })}>
                    {route.nav?.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" className="content" tabIndex={-1}>
        <Suspense fallback={<Loading />}>{content}</Suspense>
      </main>
    </div>
  );
}
