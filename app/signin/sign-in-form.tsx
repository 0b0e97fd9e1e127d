'use client';
import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';

const ERRORS: Record<string, string> = {
  CredentialsSignin: 'Wrong user name or password.',
  OAuthSignin: 'Could not start sign-in with the identity provider.',
  OAuthCallback: 'The identity provider’s answer could not be verified. Try again.',
  Callback: 'Sign-in could not be completed. Try again.',
  AccessDenied: 'Access was denied.',
  SessionRequired: 'Sign in to see that page.',
  TooManyAttempts: 'Too many failed sign-ins for this account or from this address. Wait a few minutes, then try again.',
};

export function SignInForm(props: { callbackUrl: string; error?: string; oidc?: { id: string; name: string } }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(props.error ? (ERRORS[props.error] ?? 'Sign-in failed. Try again.') : '');

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!username || !password) {
      setError('Enter your user name and password.');
      return;
    }
    setBusy(true);
    setError('');
    const res = await signIn('local', { username, password, redirect: false, callbackUrl: props.callbackUrl });
    if (!res || res.error) {
      setBusy(false);
      setError(ERRORS[res?.error ?? ''] ?? 'Wrong user name or password.');
      return;
    }
    window.location.assign(props.callbackUrl);
  }

  return (
    <>
      <h1>Sign in</h1>
      <p className="muted" style={{ marginTop: 0 }}>
        to the policy console
      </p>
      {error && (
        <div className="alert alert-error" role="alert">
          {error}
        </div>
      )}
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="username">User name</label>
          <input id="username" name="username" type="text" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} autoFocus />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </div>
        <button type="submit" className="btn btn-primary" disabled={busy} style={{ width: '100%', justifyContent: 'center' }}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {props.oidc && (
        <>
          <div className="divider">or</div>
          <button
            type="button"
            className="btn"
            style={{ width: '100%', justifyContent: 'center' }}
            onClick={() => signIn(props.oidc!.id, { callbackUrl: props.callbackUrl })}
          >
            Continue with {props.oidc.name}
          </button>
        </>
      )}
    </>
  );
}
