/**
 * The local stand-in for Supabase Auth's signing key: one ES256 key pair that signs local user tokens and
 * whose public half the stack serves as a JSON Web Key Set at `/auth/v1/.well-known/jwks.json`, as a
 * project with asymmetric JWT signing keys does. supabase-js `auth.getClaims(jwt)` in the functions and
 * the PostgREST stand-in verify tokens against it. `deno task dev` and `deno task token` share one key kept
 * in `.local/auth/signing_key.json`; tests make one per process.
 */

/** A signing key: the private key, and the public JWK the key set publishes. */
export interface LocalSigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public JWK as Supabase's key set lists it (`kid`, `alg: ES256`, `use: sig`). */
  publicJwk: JsonWebKey & { kid: string; alg: "ES256"; use: "sig" };
}

const ES256 = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGN = { name: "ECDSA", hash: "SHA-256" } as const;

/** Where `deno task dev` and `deno task token` keep the local key. */
export const LOCAL_SIGNING_KEY_PATH = ".local/auth/signing_key.json";

async function _fromPrivateJwk(jwk: JsonWebKey & { kid: string }): Promise<LocalSigningKey> {
  const { kid, ...material } = jwk;
  const privateKey = await crypto.subtle.importKey("jwk", { ...material, key_ops: ["sign"] }, ES256, true, [
    "sign",
  ]);
  const { crv, kty, x, y } = material;
  const publicJwk = { kty, crv, x, y, kid, alg: "ES256" as const, use: "sig" as const };
  const publicKey = await crypto.subtle.importKey("jwk", { kty, crv, x, y }, ES256, true, ["verify"]);
  return { kid, privateKey, publicKey, publicJwk };
}

/** A new key pair, for one process (tests). */
export async function createSigningKey(): Promise<LocalSigningKey> {
  const pair = await crypto.subtle.generateKey(ES256, true, ["sign", "verify"]) as CryptoKeyPair;
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  return await _fromPrivateJwk({ ...jwk, kid: crypto.randomUUID() });
}

/** The key kept at `path`, made and written there (readable by its owner only) on first use. */
export async function loadOrCreateSigningKey(path = LOCAL_SIGNING_KEY_PATH): Promise<LocalSigningKey> {
  try {
    return await _fromPrivateJwk(JSON.parse(await Deno.readTextFile(path)));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const pair = await crypto.subtle.generateKey(ES256, true, ["sign", "verify"]) as CryptoKeyPair;
  const jwk = { ...await crypto.subtle.exportKey("jwk", pair.privateKey), kid: crypto.randomUUID() };
  await Deno.mkdir(path.replace(/\/[^/]*$/, ""), { recursive: true });
  // createNew: two processes starting at once keep the first key, not two different ones
  try {
    await Deno.writeTextFile(path, JSON.stringify(jwk), { createNew: true, mode: 0o600 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    return await _fromPrivateJwk(JSON.parse(await Deno.readTextFile(path)));
  }
  return await _fromPrivateJwk(jwk);
}

/** The JSON Web Key Set of `key`, as `/auth/v1/.well-known/jwks.json` answers it. */
export function jwksOf(key: LocalSigningKey): { keys: LocalSigningKey["publicJwk"][] } {
  return { keys: [key.publicJwk] };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function _base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function _fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** What a local user token says; the rest of Supabase's claims are filled in. */
export interface UserTokenClaims {
  /** The user id. */
  sub: string;
  email?: string;
  /** Seconds from now until it expires (default 3600, Supabase's default session length). */
  expiresIn?: number;
  /** `iss`: the project's Auth URL. */
  issuer?: string;
}

/** A user access token as Supabase Auth issues one: ES256, with `kid`, role `authenticated`. */
export async function mintUserToken(key: LocalSigningKey, claims: UserTokenClaims): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: "ES256", kid: key.kid, typ: "JWT" };
  const payload = {
    iss: claims.issuer ?? "http://127.0.0.1:54321/auth/v1",
    sub: claims.sub,
    aud: "authenticated",
    exp: now + (claims.expiresIn ?? 3600),
    iat: now,
    email: claims.email ?? "",
    phone: "",
    app_metadata: { provider: "email", providers: ["email"] },
    user_metadata: {},
    role: "authenticated",
    aal: "aal1",
    amr: [{ method: "password", timestamp: now }],
    session_id: crypto.randomUUID(),
    is_anonymous: false,
  };
  const signingInput = `${_base64url(encoder.encode(JSON.stringify(header)))}.${
    _base64url(encoder.encode(JSON.stringify(payload)))
  }`;
  const signature = await crypto.subtle.sign(SIGN, key.privateKey, encoder.encode(signingInput));
  return `${signingInput}.${_base64url(new Uint8Array(signature))}`;
}

/** Why a token was refused, in PostgREST's words: a bad token, or an expired one. */
export type TokenVerdict = { claims: Record<string, unknown> } | { refused: "invalid" | "expired" };

/** Verifies a token against `key`: an ES256 signature by it (same `kid`), and an `exp` in the future. */
export async function verifyUserToken(key: LocalSigningKey, token: string): Promise<TokenVerdict> {
  const parts = token.split(".");
  if (parts.length !== 3) return { refused: "invalid" };
  try {
    const header = JSON.parse(decoder.decode(_fromBase64url(parts[0])));
    if (header.alg !== "ES256" || header.kid !== key.kid) return { refused: "invalid" };
    const valid = await crypto.subtle.verify(
      SIGN,
      key.publicKey,
      _fromBase64url(parts[2]),
      encoder.encode(`${parts[0]}.${parts[1]}`),
    );
    if (!valid) return { refused: "invalid" };
    const claims = JSON.parse(decoder.decode(_fromBase64url(parts[1])));
    if (typeof claims !== "object" || claims === null) return { refused: "invalid" };
    if (typeof claims.exp !== "number" || claims.exp <= Date.now() / 1000) return { refused: "expired" };
    return { claims };
  } catch {
    return { refused: "invalid" };
  }
}

/** A stable user id for an e-mail address (a name-based UUID), so `deno task token <email>` is repeatable. */
export async function userIdForEmail(email: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", encoder.encode(`local-user:${email.trim().toLowerCase()}`)),
  ).slice(0, 16);
  digest[6] = (digest[6] & 0x0f) | 0x50; // version 5-style (name-based)
  digest[8] = (digest[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
