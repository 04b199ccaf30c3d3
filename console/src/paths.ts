/** Paths of the API and of the console for an account (they share the /accounts/{id} prefix). */
import type { Account } from './api/types.js';

export const accountPath = (account: Pick<Account, 'id'>, rest = '') =>
  `/accounts/${encodeURIComponent(account.id)}${rest}`;

export const clusterPath = (account: Pick<Account, 'id'>, clusterId: string, rest = '') =>
  accountPath(account, `/clusters/${encodeURIComponent(clusterId)}${rest}`);

/** The console page of one resource record (a version of an object). */
export const resourcePath = (account: Pick<Account, 'id'>, clusterId: string, resourceId: string) =>
  clusterPath(account, clusterId, `/resources/${encodeURIComponent(resourceId)}`);

/** The console page of the newest version of an object, by uid. */
export const objectPath = (account: Pick<Account, 'id'>, clusterId: string, uid: string) =>
  clusterPath(account, clusterId, `/objects/${encodeURIComponent(uid)}`);

/** The console page of one identity (#16). */
export const identityPath = (account: Pick<Account, 'id'>, identityId: string) =>
  accountPath(account, `/identities/${encodeURIComponent(identityId)}`);

/** The console page of one runtime insight (#6). */
export const insightPath = (account: Pick<Account, 'id'>, insightId: string) =>
  accountPath(account, `/runtime/insights/${encodeURIComponent(insightId)}`);

/** The console page of one finding group (#24). */
export const findingGroupPath = (account: Pick<Account, 'id'>, groupId: string) =>
  accountPath(account, `/findings/${encodeURIComponent(groupId)}`);
