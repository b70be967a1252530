/**
 * The admin token handed to the pages in their address (`#token=...`, or `?token=...`), read once and then taken
 * out of the address so it is not left in the history or a copied link.
 */
export interface TokenFromLocation {
  token: string | null;
  /** the hash and search without the token */
  hash: string;
  search: string;
}

/**
 * @example
 * takeTokenFromLocation('#token=abc', ''); // { token: 'abc', hash: '', search: '' }
 * takeTokenFromLocation('#/groups?token=abc', ''); // { token: 'abc', hash: '#/groups', search: '' }
 */
export function takeTokenFromLocation(hash: string, search: string): TokenFromLocation {
  let token: string | null = null;
  const searchParams = new URLSearchParams(search.replace(/^\?/, ''));
  if (searchParams.has('token')) {
    token = searchParams.get('token');
    searchParams.delete('token');
  }
  let cleanHash = hash;
  const raw = hash.replace(/^#/, '');
  if (raw.startsWith('token=')) {
    // the whole fragment is the token's: `#token=abc` (or `#token=abc&...`)
    const params = new URLSearchParams(raw);
    token = params.get('token') ?? token;
    params.delete('token');
    const rest = params.toString();
    cleanHash = rest === '' ? '' : `#/?${rest}`;
  } else {
    const queryAt = raw.indexOf('?');
    if (queryAt !== -1) {
      const params = new URLSearchParams(raw.slice(queryAt + 1));
      if (params.has('token')) {
        token = params.get('token') ?? token;
        params.delete('token');
        const rest = params.toString();
        cleanHash = `#${raw.slice(0, queryAt)}${rest === '' ? '' : `?${rest}`}`;
      }
    }
  }
  const cleanSearch = searchParams.toString();
  return { token: token === '' ? null : token, hash: cleanHash, search: cleanSearch === '' ? '' : `?${cleanSearch}` };
}
