/** What the MCP client said about itself in `initialize`; handed to `ctxFor`. */
export interface ClientIdentity {
  name?: string;
  version?: string;
  /** The client's declared capabilities (`elicitation`, `roots`, `sampling`…), as sent. */
  capabilities: Record<string, unknown>;
  protocolVersion?: string;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function clientIdentity(params: Record<string, unknown> | undefined): ClientIdentity {
  const info = record(params?.clientInfo);
  const name = str(info.name);
  const version = str(info.version);
  const protocolVersion = str(params?.protocolVersion);
  return {
    ...(name === undefined ? {} : { name }),
    ...(version === undefined ? {} : { version }),
    capabilities: record(params?.capabilities),
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
  };
}

/** Form-mode elicitation: declared as `elicitation: {}` (2025-06-18) or `elicitation: { form: {} }` (later). */
export function supportsFormElicitation(client: ClientIdentity): boolean {
  const elicitation = client.capabilities.elicitation;
  if (elicitation === null || typeof elicitation !== 'object') return false;
  const modes = elicitation as Record<string, unknown>;
  return !('url' in modes) || 'form' in modes || Object.keys(modes).length === 0;
}
