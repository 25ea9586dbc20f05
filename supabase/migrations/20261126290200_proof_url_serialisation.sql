-- A proof URL create_order stores is always a URL serialisation (the WHATWG `href` the function stores),
-- also when the service key calls /rest/v1/rpc/create_order directly. is_http_url (replaced whole, from
-- 20261126000700_order_text_rule.sql) let through what a serialisation never holds: `https://bank.example/<x>`,
-- `.../"x` and `https://bank.example:443/p` were stored raw, where the function stores `%3Cx%3E`, `%22x` and
-- drops the `:443`. It now also refuses, beside what it refused before (an upper-case scheme or host, a user
-- name or password, a non-canonical IPv4 host, anything but printable ASCII):
--   - in the path, the characters the serialiser percent-encodes there (" < > ` { }) and the backslash
--     (read as a slash), and dot segments (`.`, `..`, `%2e` and their mixes, removed by the parser);
--   - in the query, " < > and ' (encoded for http and https); in the fragment, " < > and `;
--   - the scheme's default port (:443 for https, :80 for http), which the serialiser drops;
--   - an IPv6 host not in its canonical form (lower-case hex without leading zeros, the longest run of
--     two or more zero groups, the first of equals, written ::, no dotted IPv4 tail): `[0:0::1]` is `[::1]`.
-- Not checked: that an `xn--` label is valid Punycode (the parser refuses `xn--zz`; the database keeps it).
-- tests/order_text_rule_test.ts runs every case of its table through both (Deno's URL parser is the
-- reference: it leaves ^ and | raw in a path, ' and ` raw in a fragment).

-- 1. Whether p_host (between the brackets) is an IPv6 address as the URL serialiser writes it.
create or replace function public.is_canonical_ipv6(p_host text)
returns boolean
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_halves text[] := string_to_array(p_host, '::');
  v_head text[];
  v_tail text[];
  v_groups integer[];
  v_run_start integer := 0;
  v_run_length integer := 0;
  v_start integer;
  v_canonical text := '';
  v_index integer := 1;
begin
  if p_host is null or p_host !~ '^[0-9a-f:]+$' or cardinality(v_halves) > 2 then
    return false;
  end if;
  v_head := case when v_halves[1] = '' then '{}'::text[] else string_to_array(v_halves[1], ':') end;
  v_tail := case
    when cardinality(v_halves) < 2 or v_halves[2] = '' then '{}'::text[]
    else string_to_array(v_halves[2], ':')
  end;
  if exists (select 1 from unnest(v_head || v_tail) as g(hex) where g.hex !~ '^[0-9a-f]{1,4}$')
    or (cardinality(v_halves) = 1 and cardinality(v_head) <> 8)
    or (cardinality(v_halves) = 2 and cardinality(v_head) + cardinality(v_tail) > 7) then
    return false;
  end if;
  select array_agg(('x' || lpad(g.hex, 8, '0'))::bit(32)::integer order by g.n) into v_groups
  from unnest(v_head || array_fill('0'::text, array[8 - cardinality(v_head) - cardinality(v_tail)]) || v_tail)
    with ordinality as g(hex, n);

  -- the first longest run of two or more zero groups is written ::
  for v_i in 1..8 loop
    if v_groups[v_i] = 0 then
      v_start := coalesce(v_start, v_i);
      if v_i - v_start + 1 > v_run_length then
        v_run_start := v_start;
        v_run_length := v_i - v_start + 1;
      end if;
    else
      v_start := null;
    end if;
  end loop;
  if v_run_length < 2 then
    v_run_start := 0;
  end if;
  while v_index <= 8 loop
    if v_index = v_run_start then
      v_canonical := v_canonical || case when v_index = 1 then '::' else ':' end;
      v_index := v_index + v_run_length;
    else
      v_canonical := v_canonical || to_hex(v_groups[v_index]) || case when v_index < 8 then ':' else '' end;
      v_index := v_index + 1;
    end if;
  end loop;
  return v_canonical = p_host;
end;
$$;

-- 2. A proof link as the function stores it: the serialisation of an absolute http(s) URL of at most p_max
--    characters, without user name or password.
create or replace function public.is_http_url(p_url text, p_max integer)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(
    length(p_url) <= p_max
      and p_url ~ '^https?://[^/?#]+/[!-~]*$'
      and u.authority ~ '^([a-z0-9!"$&''()*+,;=_`{}~.-]+|\[[0-9a-f:]+\])(:(0|[1-9][0-9]{0,4}))?$'
      and coalesce(u.port <= 65535, true)
      -- the scheme's default port is dropped
      and (u.scheme, coalesce(u.port, 0)) not in (('https', 443), ('http', 80))
      -- a host that ends in a number is an IPv4 address, written in dotted decimal
      and (
        u.host !~ '(^|\.)(0x[0-9a-f]*|[0-9]+)\.?$'
        or u.host ~ '^((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$'
      )
      and (u.host !~ '^\[' or public.is_canonical_ipv6(substring(u.host from '^\[(.*)\]$')))
      -- what the serialiser percent-encodes, or reads otherwise, in each part
      and u.path !~ '["<>`{}\\]'
      and u.path !~* '/(\.|%2e){1,2}(/|$)'
      and coalesce(u.query !~ '["<>'']', true)
      and coalesce(u.fragment !~ '["<>`]', true),
    false
  )
  from (
    select p.parts[1] as scheme, p.parts[2] as authority, p.parts[3] as path, p.parts[4] as query,
      p.parts[5] as fragment, substring(p.parts[2] from '^(\[[^]]*\]|[^:]*)') as host,
      substring(p.parts[2] from ':([0-9]{1,5})$')::integer as port
    from (
      select regexp_match(p_url, '^(https?)://([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$') as parts
    ) p
  ) u;
$$;

revoke execute on function public.is_canonical_ipv6(text) from public, anon, authenticated;
grant execute on function public.is_canonical_ipv6(text) to service_role;
revoke execute on function public.is_http_url(text, integer) from public, anon, authenticated;
grant execute on function public.is_http_url(text, integer) to service_role;
