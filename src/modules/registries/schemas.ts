import { Type } from 'typebox';
import { Id, Timestamp } from '../../http/schemas.js';

export const REGISTRY_TYPES = ['cloudA', 'cloudB', 'generic'] as const;

const nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const RegistrySchema = Type.Object({
  id: Type.String(),
  account_id: Type.String(),
  type: Type.Enum([...REGISTRY_TYPES]),
  repository_name: Type.String(),
  cloudA_account_id: nullable('cloudA registries: the 12-digit account id'),
  cloudA_region: nullable('cloudA registries: the region, e.g. eu-west-1'),
  cloudB_location: nullable('cloudB registries: the location, e.g. europe-west1 or us'),
  cloudB_project_id: nullable('cloudB registries: the project id'),
  cloudB_project_number: nullable('cloudB registries: the project number, when given'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const field = (description: string) => Type.Optional(Type.String({ maxLength: 256, description }));

export const CreateRegistryBody = Type.Object(
  {
    type: Type.Enum([...REGISTRY_TYPES], {
      description:
        'cloudA: repository_name, cloudA_account_id, cloudA_region. cloudB: repository_name, ' +
        'cloudB_project_id, cloudB_location (cloudB_project_number optional). generic: repository_name ' +
        '(host[:port][/path]). Fields of another type must be absent or empty.',
    }),
    repository_name: field('repository (cloudA, cloudB) or registry address (generic)'),
    cloudA_account_id: field('cloudA only'),
    cloudA_region: field('cloudA only'),
    cloudB_location: field('cloudB only'),
    cloudB_project_id: field('cloudB only'),
    cloudB_project_number: field('cloudB only'),
  },
  { additionalProperties: false },
);

export const RegistryList = Type.Array(RegistrySchema);
export const RegistryParams = Type.Object({ account_id: Id, registry_id: Id });
