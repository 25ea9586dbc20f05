/**
 * The two Auth endpoints supabase-js needs to verify a user's token, served by the local stack over the
 * local signing key: `GET /auth/v1/.well-known/jwks.json` (the key set `auth.getClaims` verifies an ES256
 * token against) and `GET /auth/v1/user` (what `auth.getUser` asks, and what `getClaims` falls back to for
 * a token it cannot verify itself). There is no sign-in here: `deno task token` mints a user's token.
 */
import { jwksOf, type LocalSigningKey, verifyUserToken } from "./auth_keys.ts";

function _json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", ...headers },
  });
}

/** The Auth routes under `/auth/v1`, `path` being what follows it. */
export function createAuthRoutes(signingKey: LocalSigningKey) {
  return async function handleAuth(request: Request, path: string): Promise<Response> {
    if (request.method === "GET" && path === "/.well-known/jwks.json") {
      return _json(200, jwksOf(signingKey), { "Cache-Control": "public, max-age=600" });
    }
    if (request.method === "GET" && path === "/user") {
      const token = /^bearer +(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
      const verdict = await verifyUserToken(signingKey, token);
      if ("refused" in verdict) {
        return _json(403, {
          code: 403,
          error_code: "bad_jwt",
          msg: verdict.refused === "expired"
            ? "invalid JWT: token is expired"
            : "invalid JWT: unable to verify",
        });
      }
      const claims = verdict.claims;
      return _json(200, {
        id: claims.sub,
        aud: claims.aud,
        role: claims.role,
        email: claims.email,
        app_metadata: claims.app_metadata ?? {},
        user_metadata: claims.user_metadata ?? {},
        is_anonymous: claims.is_anonymous ?? false,
      });
    }
    return _json(404, {
      code: 404,
      error_code: "not_found",
      msg: `${path} is not served by the local stack`,
    });
  };
}
