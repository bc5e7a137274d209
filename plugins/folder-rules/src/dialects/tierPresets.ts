/** A Wunderland folder rule as users write it. */
export interface WunderlandRule {
  pattern: string;
  read: boolean;
  write: boolean;
  description?: string;
}

export interface FolderPermissionConfig {
  defaultPolicy: 'allow' | 'deny';
  inheritFromTier: boolean;
  rules: WunderlandRule[];
}

export type Tier = 'dangerous' | 'permissive' | 'balanced' | 'strict' | 'paranoid';

/** The five tier presets exactly as seed 001 lists them. */
export const TIER_PRESETS: Readonly<Record<Tier, FolderPermissionConfig>> = {
  dangerous: { defaultPolicy: 'allow', inheritFromTier: false, rules: [] },
  permissive: {
    defaultPolicy: 'allow',
    inheritFromTier: true,
    rules: [
      { pattern: '!/etc/**', read: false, write: false, description: 'Block system config' },
      { pattern: '!/root/**', read: false, write: false, description: 'Block root home' },
    ],
  },
  balanced: {
    defaultPolicy: 'deny',
    inheritFromTier: true,
    rules: [
      { pattern: '~/workspace/**', read: true, write: true, description: 'Agent workspace' },
      { pattern: '/tmp/**', read: true, write: true, description: 'Temp files' },
      { pattern: '/var/log/**', read: true, write: false, description: 'Read-only logs' },
    ],
  },
  strict: {
    defaultPolicy: 'deny',
    inheritFromTier: true,
    rules: [
      { pattern: '~/workspace/**', read: true, write: true },
      { pattern: '/tmp/agents/**', read: true, write: true },
    ],
  },
  paranoid: {
    defaultPolicy: 'deny',
    inheritFromTier: true,
    rules: [{ pattern: '~/workspace/**', read: true, write: true, description: 'Agent workspace only' }],
  },
};

/** Wunderland permission sets: their filesystem flags (PRESETS_AND_PERMISSIONS.md, `PERMISSION_SETS`). */
export const PERMISSION_SET_FILESYSTEM: Readonly<Record<string, { read: boolean; write: boolean }>> = {
  unrestricted: { read: true, write: true },
  autonomous: { read: true, write: true },
  supervised: { read: true, write: false },
  'read-only': { read: true, write: false },
  minimal: { read: false, write: false },
};

/** Each tier's recommended permission set (SecurityTiers.ts), whose flags a tier falls back to. */
export const TIER_PERMISSION_SET: Readonly<Record<Tier, string>> = {
  dangerous: 'unrestricted',
  permissive: 'autonomous',
  balanced: 'supervised',
  strict: 'supervised',
  paranoid: 'minimal',
};
