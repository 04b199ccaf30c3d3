/**
 * The closed catalogue of integration providers (the description's 22 integration types: ticketing,
 * log/SIEM, vulnerability management, endpoint protection, identity provider, collaboration, and
 * three `mock-` test variants). Each provider declares its config schema; `secret` fields are
 * sealed at rest and never returned in clear (see docs/integrations.md).
 *
 * `delivery` says what a configured instance does with new finding groups:
 * - `webhook`: a signed JSON POST to `url` (generic webhook);
 * - `record`: the `mock-` variants write the delivery to the log without any network call;
 * - `none`: the configuration is stored for clients and connectors; Posture itself sends nothing.
 */
export type ConfigFieldType = 'string' | 'url' | 'integer' | 'boolean' | 'enum';
export type Delivery = 'webhook' | 'record' | 'none';

export interface ConfigField {
  title: string;
  key: string;
  type: ConfigFieldType;
  enum_values: string[];
  description: string;
  required: boolean;
  /** sealed at rest, answered as the redaction marker */
  secret: boolean;
  /** internal check, not part of the published field list */
  minLength?: number;
}

export interface Provider {
  name: string;
  type: string;
  auth_method: 'credentials' | 'api_key' | 'oauth_client' | 'webhook_secret';
  categories: string[];
  delivery: Delivery;
  config: ConfigField[];
}

export const SEVERITIES = ['negligible', 'low', 'medium', 'high', 'critical'] as const;

const field = (
  key: string,
  title: string,
  description: string,
  options: Partial<Pick<ConfigField, 'type' | 'enum_values' | 'required' | 'secret'>> = {},
): ConfigField => ({
  title,
  key,
  type: options.type ?? 'string',
  enum_values: options.enum_values ?? [],
  description,
  required: options.required ?? true,
  secret: options.secret ?? false,
});

const url = (description: string, options: { secret?: boolean; required?: boolean } = {}) =>
  field('url', 'URL', description, { type: 'url', ...options });
const apiToken = (title = 'API token') =>
  field('api_token', title, 'credential used to call the product API', { secret: true });
const clientCredentials = [
  field('client_id', 'Client ID', 'OAuth client id'),
  field('client_secret', 'Client secret', 'OAuth client secret', { secret: true }),
];
const minSeverity = field(
  'min_severity',
  'Minimum severity',
  'finding groups below this severity are not sent (default: all)',
  { type: 'enum', enum_values: [...SEVERITIES], required: false },
);
const signingSecret = field(
  'signing_secret',
  'Signing secret',
  'HMAC-SHA256 key of the X-Posture-Signature header (at least 16 characters)',
  { secret: true },
);
signingSecret.minLength = 16;

const provider = (
  type: string,
  name: string,
  categories: string[],
  auth_method: Provider['auth_method'],
  config: ConfigField[],
  delivery: Delivery = 'none',
): Provider => ({ type, name, categories, auth_method, delivery, config });

export const PROVIDERS: readonly Provider[] = [
  // ticketing
  provider('jira', 'Jira', ['ticketing'], 'credentials', [
    url('site address, e.g. https://acme.atlassian.net'),
    field('email', 'Email', 'account the API token belongs to'),
    apiToken(),
    field('project_key', 'Project key', 'project new issues are created in'),
  ]),
  provider('servicenow', 'ServiceNow', ['ticketing'], 'credentials', [
    url('instance address, e.g. https://acme.service-now.com'),
    field('username', 'Username', 'integration user'),
    field('password', 'Password', 'integration user password', { secret: true }),
    field('assignment_group', 'Assignment group', 'group incidents are assigned to', { required: false }),
  ]),
  provider('pagerduty', 'PagerDuty', ['ticketing', 'collaboration'], 'api_key', [
    field('routing_key', 'Routing key', 'Events API v2 integration key', { secret: true }),
  ]),
  // log / SIEM
  provider('splunk', 'Splunk', ['log', 'siem'], 'api_key', [
    url('HTTP Event Collector address'),
    field('hec_token', 'HEC token', 'HTTP Event Collector token', { secret: true }),
    field('index', 'Index', 'index events are written to', { required: false }),
  ]),
  provider('elastic', 'Elastic', ['log', 'siem'], 'api_key', [
    url('Elasticsearch address'),
    field('api_key', 'API key', 'Elasticsearch API key', { secret: true }),
    field('index', 'Index', 'index events are written to'),
  ]),
  provider('datadog', 'Datadog', ['log', 'siem'], 'api_key', [
    field('site', 'Site', 'Datadog site', {
      type: 'enum',
      enum_values: [
        'datadoghq.com',
        'us3.datadoghq.com',
        'us5.datadoghq.com',
        'datadoghq.eu',
        'ap1.datadoghq.com',
      ],
    }),
    field('api_key', 'API key', 'Datadog API key', { secret: true }),
  ]),
  provider('sumologic', 'Sumo Logic', ['log', 'siem'], 'credentials', [
    url('HTTP source address (it embeds a token)', { secret: true }),
  ]),
  provider('microsoft-sentinel', 'Microsoft Sentinel', ['siem'], 'oauth_client', [
    field('tenant_id', 'Directory (tenant) ID', 'Entra ID tenant'),
    ...clientCredentials,
    field('workspace_id', 'Workspace ID', 'Log Analytics workspace'),
  ]),
  // vulnerability management
  provider('tenable', 'Tenable', ['vulnerability_management'], 'api_key', [
    field('access_key', 'Access key', 'API access key'),
    field('secret_key', 'Secret key', 'API secret key', { secret: true }),
  ]),
  provider('qualys', 'Qualys', ['vulnerability_management'], 'credentials', [
    url('API server address of the subscription'),
    field('username', 'Username', 'API user'),
    field('password', 'Password', 'API user password', { secret: true }),
  ]),
  provider('rapid7', 'Rapid7 InsightVM', ['vulnerability_management'], 'api_key', [
    field('region', 'Region', 'Insight platform region', {
      type: 'enum',
      enum_values: ['us', 'us2', 'us3', 'eu', 'ca', 'au', 'ap'],
    }),
    field('api_key', 'API key', 'Insight platform API key', { secret: true }),
  ]),
  // endpoint protection
  provider('crowdstrike', 'CrowdStrike Falcon', ['endpoint_protection'], 'oauth_client', [
    url('API base address, e.g. https://api.crowdstrike.com'),
    ...clientCredentials,
  ]),
  provider('sentinelone', 'SentinelOne', ['endpoint_protection'], 'api_key', [
    url('management console address'),
    apiToken(),
  ]),
  provider('microsoft-defender', 'Microsoft Defender for Endpoint', ['endpoint_protection'], 'oauth_client', [
    field('tenant_id', 'Directory (tenant) ID', 'Entra ID tenant'),
    ...clientCredentials,
  ]),
  // identity providers
  provider('okta', 'Okta', ['identity_provider'], 'api_key', [
    url('organisation address, e.g. https://acme.okta.com'),
    apiToken(),
  ]),
  provider('entra-id', 'Microsoft Entra ID', ['identity_provider'], 'oauth_client', [
    field('tenant_id', 'Directory (tenant) ID', 'Entra ID tenant'),
    ...clientCredentials,
  ]),
  // collaboration
  provider('slack', 'Slack', ['collaboration'], 'webhook_secret', [
    url('incoming webhook address (it embeds a token)', { secret: true }),
    field('channel', 'Channel', 'channel name shown in messages', { required: false }),
  ]),
  provider('teams', 'Microsoft Teams', ['collaboration'], 'webhook_secret', [
    url('incoming webhook address (it embeds a token)', { secret: true }),
  ]),
  provider(
    'webhook',
    'Webhook',
    ['collaboration'],
    'webhook_secret',
    [url('receiver address (http or https)'), signingSecret, minSeverity],
    'webhook',
  ),
  // test variants: deliveries are recorded in the delivery log, nothing leaves the process
  provider(
    'mock-webhook',
    'Mock webhook',
    ['collaboration'],
    'webhook_secret',
    [url('receiver address; validated but never called', { required: false }), signingSecret, minSeverity],
    'record',
  ),
  provider(
    'mock-ticketing',
    'Mock ticketing',
    ['ticketing'],
    'credentials',
    [field('project_key', 'Project key', 'project the mock tickets go to'), apiToken(), minSeverity],
    'record',
  ),
  provider(
    'mock-siem',
    'Mock SIEM',
    ['log', 'siem'],
    'api_key',
    [
      field('index', 'Index', 'index the mock events go to'),
      field('api_key', 'API key', 'mock key', { secret: true }),
      minSeverity,
    ],
    'record',
  ),
];

export const PROVIDER_TYPES = PROVIDERS.map((p) => p.type);

const BY_TYPE = new Map(PROVIDERS.map((p) => [p.type, p]));

export const providerOf = (type: string): Provider | undefined => BY_TYPE.get(type);

/** Types whose configured instances receive finding-group deliveries. */
export const DELIVERING_TYPES = PROVIDERS.filter((p) => p.delivery !== 'none').map((p) => p.type);
