// The gateway's audit hook: every model call, egress decision and credential failure is reported through it.

/**
 * Receives one audit entry. Entries never hold a key or a whole JWT: at most the first 8
 * characters of a token's jti. Types: `gateway.call`, `gateway.auth-failed`, `gateway.error`,
 * `egress.decision`, `gateway.mcp-tools`, `gateway.mcp-call`, `gateway.mcp-refused`.
 */
export type GatewayAudit = (type: string, data: Record<string, unknown>) => void;
