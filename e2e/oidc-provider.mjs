// A real OpenID Connect provider on loopback for the e2e suite (test only).
// Its built-in dev login form accepts any password for the accounts below.
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT ?? 4010);
const appUrl = process.env.APP_URL ?? 'http://localhost:3999';
const ACCOUNTS = {
  dana: { sub: 'dana', name: 'Dana Oidc', email: 'dana@example.test', email_verified: true, groups: ['ops', 'platform'] },
  // Calls herself Sam (the demo's domain admin) and claims an address nobody verified.
  impostor: { sub: 'impostor', name: 'Sam', email: 'sam@example.test', email_verified: false, groups: [] },
};

const oidc = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: 'keelson-console',
      client_secret: 'keelson-console-secret',
      redirect_uris: [`${appUrl}/api/auth/callback/oidc`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
  findAccount: async (_ctx, id) => (ACCOUNTS[id] ? { accountId: id, claims: async () => ACCOUNTS[id] } : undefined),
  features: { devInteractions: { enabled: true } },
  // Without this, name/email reach only the userinfo endpoint and next-auth's session stays empty.
  conformIdTokenClaims: false,
  pkce: { required: () => false },
  cookies: { keys: ['keelson-e2e-cookie-key'] },
});
oidc.listen(port, '127.0.0.1', () => console.log(`test OIDC provider on http://127.0.0.1:${port}`));
