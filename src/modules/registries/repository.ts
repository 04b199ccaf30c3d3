import type { Executor } from '../../db/database.js';
import type { RegistryFields, RegistryType } from './validation.js';

export interface RegistryRow {
  id: string;
  account_id: string;
  type: RegistryType;
  repository_name: string;
  cloud_a_account_id: string | null;
  cloud_a_region: string | null;
  cloud_b_location: string | null;
  cloud_b_project_id: string | null;
  cloud_b_project_number: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, account_id, type, repository_name, cloud_a_account_id, cloud_a_region,
  cloud_b_location, cloud_b_project_id, cloud_b_project_number, created_at, updated_at`;

export async function insertRegistry(
  db: Executor,
  registry: { accountId: string; id: string; type: RegistryType; createdBy: string; fields: RegistryFields },
): Promise<RegistryRow> {
  const f = registry.fields;
  const { rows } = await db.query<RegistryRow>(
    `insert into registries (account_id, id, type, created_by, repository_name, cloud_a_account_id,
       cloud_a_region, cloud_b_location, cloud_b_project_id, cloud_b_project_number)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning ${COLUMNS}`,
    [
      registry.accountId,
      registry.id,
      registry.type,
      registry.createdBy,
      f.repository_name,
      f.cloudA_account_id,
      f.cloudA_region,
      f.cloudB_location,
      f.cloudB_project_id,
      f.cloudB_project_number,
    ],
  );
  return rows[0]!;
}

/** Every registry of the account: an account holds a handful, so the list is not paged. */
export async function listRegistries(db: Executor, accountId: string) {
  const { rows } = await db.query<RegistryRow>(
    `select ${COLUMNS} from registries where account_id = $1 order by created_at, id`,
    [accountId],
  );
  return rows;
}

export async function findRegistry(db: Executor, accountId: string, id: string) {
  const { rows } = await db.query<RegistryRow>(
    `select ${COLUMNS} from registries where account_id = $1 and id = $2`,
    [accountId, id],
  );
  return rows[0];
}
