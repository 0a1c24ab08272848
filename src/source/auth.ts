// Registry auth: WWW-Authenticate challenges (Basic and Bearer), and a token cache keyed by
// realm, service and scope, so one token serves every request of one scope until it expires.

export interface Challenge {
  scheme: 'basic' | 'bearer';
  params: Record<string, string>;
}

/** Parses a WWW-Authenticate header value; unknown schemes are skipped. */
export function parseWWWAuthenticate(header: string | undefined): Challenge[] {
  if (!header) return [];
  const out: Challenge[] = [];
  const re = /\s*([A-Za-z][\w-]*)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*)))?\s*,?/gy;
  let current: Challenge | undefined;
  let m: RegExpExecArray | null;
  while (re.lastIndex < header.length && (m = re.exec(header))) {
    const [, word, quoted, bare] = m;
    if (quoted === undefined && bare === undefined) {
      // A new scheme starts: "Bearer realm=..." — the word may be followed by a parameter.
      const scheme = word!.toLowerCase();
      current = scheme === 'basic' || scheme === 'bearer' ? { scheme, params: {} } : undefined;
      if (current) out.push(current);
      continue;
    }
    if (current)
      current.params[word!.toLowerCase()] =
        quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : bare!;
  }
  return out;
}

/** The scope a registry token needs for a repository. */
export function repositoryScope(repository: string, push: boolean): string {
  return `repository:${repository}:${push ? 'pull,push' : 'pull'}`;
}

export interface TokenResponse {
  token?: string;
  access_token?: string;
  expires_in?: number;
  issued_at?: string;
}

/** A token's bearer string and its expiry (ms since epoch) from a token server response. */
export function tokenFromResponse(
  body: TokenResponse,
  now: number,
): { token: string; expiresAt: number } | undefined {
  const token = body.token || body.access_token;
  if (typeof token !== 'string' || token === '') return undefined;
  // The distribution token spec: expires_in defaults to 60 seconds.
  const ttl = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 60;
  const issued = body.issued_at ? Date.parse(body.issued_at) : NaN;
  const start = Number.isNaN(issued) ? now : Math.min(now, issued);
  return { token, expiresAt: start + ttl * 1000 };
}

export class TokenCache {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();

  static key(realm: string, service: string, scope: string): string {
    return `${realm}\n${service}\n${scope}`;
  }

  /** A token valid for at least another 10 seconds, or undefined. */
  get(key: string, now: number): string | undefined {
    const t = this.tokens.get(key);
    if (!t) return undefined;
    if (t.expiresAt - 10_000 <= now) {
      this.tokens.delete(key);
      return undefined;
    }
    return t.token;
  }

  set(key: string, token: string, expiresAt: number): void {
    this.tokens.set(key, { token, expiresAt });
  }

  delete(key: string): void {
    this.tokens.delete(key);
  }

  get size(): number {
    return this.tokens.size;
  }
}
