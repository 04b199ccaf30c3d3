import type { Migration } from '../migrator.js';
import { tenancy } from './0001-tenancy.js';

/** In apply order. Never edit a released migration: add a new one. */
export const migrations: readonly Migration[] = [tenancy];
