/** Readable names for API enum values the views share. */
export const IDENTITY_TYPE_LABELS: Record<string, string> = {
  k8s_service_account: 'Service account',
  k8s_user: 'User',
  k8s_group: 'Group',
};

/** The personal-data labels of HTTP observations (docs/runtime-events.md section 9). */
export function piiLabel(label: string): string {
  return label.replaceAll('_', ' ');
}
