/** The `--approvals` values of `toolgate mcp` and `toolgate hook`. */
export const APPROVAL_STRATEGIES = ['auto-deny', 'auto-allow', 'tty'] as const;
export type ApprovalStrategyName = (typeof APPROVAL_STRATEGIES)[number];
