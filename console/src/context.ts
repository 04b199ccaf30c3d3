/** What every view may ask of the signed-in console. */
import { createContext, useContext } from 'react';
import type { Account } from './api/types.js';

export interface ConsoleContextValue {
  /** accounts the access key can see (one for an account-scoped key) */
  accounts: Account[];
  /** true when this server offers the operation, e.g. 'GET /accounts/{account_id}/clusters' */
  offers: (operation: string) => boolean;
  signOut: () => Promise<void>;
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole outside the signed-in console');
  return value;
}
