-- The text rule of "Request body" in SQL: create_order refuses what the function's schema refuses for text
-- fields, so the service key calling /rest/v1/rpc/create_order directly stores nothing the function would
-- refuse: CR, LF, TAB and every other control character, bidi controls, the directional marks U+200E,
-- U+200F and U+061C, the noncharacters and specials U+FDD0-U+FDEF and U+FFF0-U+FFFF, text with nothing
-- visible, too long a value, a country that is no assigned ISO 3166-1 alpha-2 code, a phone that is not
-- E.164, a proof URL that is not the serialisation of an absolute http(s) URL (`javascript:`). Each function
-- mirrors one of supabase/functions/_shared/orders/: text_rules.ts, phone_number.ts, iso_countries.ts;
-- tests/order_text_rule_test.ts runs one table of examples through both, and compares the invisible
-- characters and the country codes of both over every candidate.
--
-- Text is kept as the function keeps it: trimmed (JavaScript's trim: white space and line terminators) and
-- NFC-normalised. Lengths are in characters (code points), as the contract's "1-200 chars" means them, as the
-- columns' own checks count them (length(buyer_name) between 1 and 200) and as openapi.json's maxLength does:
-- a name of 101 emoji is 101 characters. A proof URL is kept as given, and must already be in the form the
-- function stores (the WHATWG URL serialisation, `href`).
--
-- Beside them, the two rules the tables check for any writer: one-line text (is_one_line_text) and the
-- buyer's e-mail address (is_email_address).

-- JavaScript's String.prototype.trim: its white space (Zs, TAB, VT, FF, NBSP, ZWNBSP) and line terminators.
create or replace function public.trim_text(p_text text)
returns text
language sql
immutable
set search_path = ''
as $$
  select regexp_replace(
    p_text,
    '^[\u0009-\u000d\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+|[\u0009-\u000d\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$',
    '', 'g'
  );
$$;

revoke execute on function public.trim_text(text) from public, anon, authenticated, service_role;
grant execute on function public.trim_text(text) to service_role;

-- Why a text's characters are refused wherever they stand (null: they are not), as text_rules.ts says it.
create or replace function public.text_character_problem(p_text text)
returns text
language sql
immutable
set search_path = ''
as $$
  select case
    -- C0 (with TAB, LF, CR), DEL and C1, and the line and paragraph separators (no text holds NUL)
    when p_text ~ '[\u0001-\u001f\u007f-\u009f\u2028\u2029]' then 'must not contain control characters or line breaks'
    when p_text ~ '[\u202a-\u202e\u2066-\u2069]'
      then 'must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)'
    when p_text ~ '[\u200e\u200f\u061c]' then 'must not contain directional marks (U+200E, U+200F, U+061C)'
    when p_text ~ '[\ufdd0-\ufdef\ufff0-\uffff]'
      then 'must not contain noncharacters or specials (U+FDD0-U+FDEF, U+FFF0-U+FFFF)'
  end;
$$;

revoke execute on function public.text_character_problem(text) from public, anon, authenticated, service_role;
grant execute on function public.text_character_problem(text) to service_role;

-- Whether a text draws anything: what is left without white space, default-ignorable characters (zero-width,
-- U+3164 and the other Hangul fillers, variation selectors), format characters, combining marks and U+2800
-- BRAILLE BLANK. The class is text_rules.ts's
-- /[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\p{M}\u2800]/u written out from the Unicode tables
-- of Deno 2.9.6 (PostgreSQL's regular expressions know no Unicode properties).
create or replace function public.has_visible_character(p_text text)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select regexp_replace(p_text, '[' ||
    '\u0009-\u000d\u0020\u0085\u00a0\u00ad\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2' ||
    '\u05c4\u05c5\u05c7\u0600-\u0605\u0610-\u061a\u061c\u064b-\u065f\u0670\u06d6-\u06dd\u06df-\u06e4' ||
    '\u06e7\u06e8\u06ea-\u06ed\u070f\u0711\u0730-\u074a\u07a6-\u07b0\u07eb-\u07f3\u07fd\u0816-\u0819' ||
    '\u081b-\u0823\u0825-\u0827\u0829-\u082d\u0859-\u085b\u0890\u0891\u0897-\u089f\u08ca-\u0903' ||
    '\u093a-\u093c\u093e-\u094f\u0951-\u0957\u0962\u0963\u0981-\u0983\u09bc\u09be-\u09c4\u09c7\u09c8' ||
    '\u09cb-\u09cd\u09d7\u09e2\u09e3\u09fe\u0a01-\u0a03\u0a3c\u0a3e-\u0a42\u0a47\u0a48\u0a4b-\u0a4d' ||
    '\u0a51\u0a70\u0a71\u0a75\u0a81-\u0a83\u0abc\u0abe-\u0ac5\u0ac7-\u0ac9\u0acb-\u0acd\u0ae2\u0ae3' ||
    '\u0afa-\u0aff\u0b01-\u0b03\u0b3c\u0b3e-\u0b44\u0b47\u0b48\u0b4b-\u0b4d\u0b55-\u0b57\u0b62\u0b63' ||
    '\u0b82\u0bbe-\u0bc2\u0bc6-\u0bc8\u0bca-\u0bcd\u0bd7\u0c00-\u0c04\u0c3c\u0c3e-\u0c44\u0c46-\u0c48' ||
    '\u0c4a-\u0c4d\u0c55\u0c56\u0c62\u0c63\u0c81-\u0c83\u0cbc\u0cbe-\u0cc4\u0cc6-\u0cc8\u0cca-\u0ccd' ||
    '\u0cd5\u0cd6\u0ce2\u0ce3\u0cf3\u0d00-\u0d03\u0d3b\u0d3c\u0d3e-\u0d44\u0d46-\u0d48\u0d4a-\u0d4d' ||
    '\u0d57\u0d62\u0d63\u0d81-\u0d83\u0dca\u0dcf-\u0dd4\u0dd6\u0dd8-\u0ddf\u0df2\u0df3\u0e31' ||
    '\u0e34-\u0e3a\u0e47-\u0e4e\u0eb1\u0eb4-\u0ebc\u0ec8-\u0ece\u0f18\u0f19\u0f35\u0f37\u0f39' ||
    '\u0f3e\u0f3f\u0f71-\u0f84\u0f86\u0f87\u0f8d-\u0f97\u0f99-\u0fbc\u0fc6\u102b-\u103e\u1056-\u1059' ||
    '\u105e-\u1060\u1062-\u1064\u1067-\u106d\u1071-\u1074\u1082-\u108d\u108f\u109a-\u109d\u115f\u1160' ||
    '\u135d-\u135f\u1680\u1712-\u1715\u1732-\u1734\u1752\u1753\u1772\u1773\u17b4-\u17d3\u17dd' ||
    '\u180b-\u180f\u1885\u1886\u18a9\u1920-\u192b\u1930-\u193b\u1a17-\u1a1b\u1a55-\u1a5e\u1a60-\u1a7c' ||
    '\u1a7f\u1ab0-\u1ace\u1b00-\u1b04\u1b34-\u1b44\u1b6b-\u1b73\u1b80-\u1b82\u1ba1-\u1bad' ||
    '\u1be6-\u1bf3\u1c24-\u1c37\u1cd0-\u1cd2\u1cd4-\u1ce8\u1ced\u1cf4\u1cf7-\u1cf9\u1dc0-\u1dff' ||
    '\u2000-\u200f\u2028-\u202f\u205f-\u206f\u20d0-\u20f0\u2800\u2cef-\u2cf1\u2d7f\u2de0-\u2dff\u3000' ||
    '\u302a-\u302f\u3099\u309a\u3164\ua66f-\ua672\ua674-\ua67d\ua69e\ua69f\ua6f0\ua6f1\ua802\ua806' ||
    '\ua80b\ua823-\ua827\ua82c\ua880\ua881\ua8b4-\ua8c5\ua8e0-\ua8f1\ua8ff\ua926-\ua92d\ua947-\ua953' ||
    '\ua980-\ua983\ua9b3-\ua9c0\ua9e5\uaa29-\uaa36\uaa43\uaa4c\uaa4d\uaa7b-\uaa7d\uaab0\uaab2-\uaab4' ||
    '\uaab7\uaab8\uaabe\uaabf\uaac1\uaaeb-\uaaef\uaaf5\uaaf6\uabe3-\uabea\uabec\uabed\ufb1e' ||
    '\ufe00-\ufe0f\ufe20-\ufe2f\ufeff\uffa0\ufff0-\ufffb\U000101fd\U000102e0\U00010376-\U0001037a' ||
    '\U00010a01-\U00010a03\U00010a05\U00010a06\U00010a0c-\U00010a0f\U00010a38-\U00010a3a\U00010a3f' ||
    '\U00010ae5\U00010ae6\U00010d24-\U00010d27\U00010d69-\U00010d6d\U00010eab\U00010eac' ||
    '\U00010efc-\U00010eff\U00010f46-\U00010f50\U00010f82-\U00010f85\U00011000-\U00011002' ||
    '\U00011038-\U00011046\U00011070\U00011073\U00011074\U0001107f-\U00011082\U000110b0-\U000110ba' ||
    '\U000110bd\U000110c2\U000110cd\U00011100-\U00011102\U00011127-\U00011134\U00011145\U00011146' ||
    '\U00011173\U00011180-\U00011182\U000111b3-\U000111c0\U000111c9-\U000111cc\U000111ce\U000111cf' ||
    '\U0001122c-\U00011237\U0001123e\U00011241\U000112df-\U000112ea\U00011300-\U00011303' ||
    '\U0001133b\U0001133c\U0001133e-\U00011344\U00011347\U00011348\U0001134b-\U0001134d\U00011357' ||
    '\U00011362\U00011363\U00011366-\U0001136c\U00011370-\U00011374\U000113b8-\U000113c0\U000113c2' ||
    '\U000113c5\U000113c7-\U000113ca\U000113cc-\U000113d0\U000113d2\U000113e1\U000113e2' ||
    '\U00011435-\U00011446\U0001145e\U000114b0-\U000114c3\U000115af-\U000115b5\U000115b8-\U000115c0' ||
    '\U000115dc\U000115dd\U00011630-\U00011640\U000116ab-\U000116b7\U0001171d-\U0001172b' ||
    '\U0001182c-\U0001183a\U00011930-\U00011935\U00011937\U00011938\U0001193b-\U0001193e\U00011940' ||
    '\U00011942\U00011943\U000119d1-\U000119d7\U000119da-\U000119e0\U000119e4\U00011a01-\U00011a0a' ||
    '\U00011a33-\U00011a39\U00011a3b-\U00011a3e\U00011a47\U00011a51-\U00011a5b\U00011a8a-\U00011a99' ||
    '\U00011c2f-\U00011c36\U00011c38-\U00011c3f\U00011c92-\U00011ca7\U00011ca9-\U00011cb6' ||
    '\U00011d31-\U00011d36\U00011d3a\U00011d3c\U00011d3d\U00011d3f-\U00011d45\U00011d47' ||
    '\U00011d8a-\U00011d8e\U00011d90\U00011d91\U00011d93-\U00011d97\U00011ef3-\U00011ef6' ||
    '\U00011f00\U00011f01\U00011f03\U00011f34-\U00011f3a\U00011f3e-\U00011f42\U00011f5a' ||
    '\U00013430-\U00013440\U00013447-\U00013455\U0001611e-\U0001612f\U00016af0-\U00016af4' ||
    '\U00016b30-\U00016b36\U00016f4f\U00016f51-\U00016f87\U00016f8f-\U00016f92\U00016fe4' ||
    '\U00016ff0\U00016ff1\U0001bc9d\U0001bc9e\U0001bca0-\U0001bca3\U0001cf00-\U0001cf2d' ||
    '\U0001cf30-\U0001cf46\U0001d165-\U0001d169\U0001d16d-\U0001d182\U0001d185-\U0001d18b' ||
    '\U0001d1aa-\U0001d1ad\U0001d242-\U0001d244\U0001da00-\U0001da36\U0001da3b-\U0001da6c\U0001da75' ||
    '\U0001da84\U0001da9b-\U0001da9f\U0001daa1-\U0001daaf\U0001e000-\U0001e006\U0001e008-\U0001e018' ||
    '\U0001e01b-\U0001e021\U0001e023\U0001e024\U0001e026-\U0001e02a\U0001e08f\U0001e130-\U0001e136' ||
    '\U0001e2ae\U0001e2ec-\U0001e2ef\U0001e4ec-\U0001e4ef\U0001e5ee\U0001e5ef\U0001e8d0-\U0001e8d6' ||
    '\U0001e944-\U0001e94a\U000e0000-\U000e0fff' || ']', '', 'g') <> '';
$$;

revoke execute on function public.has_visible_character(text) from public, anon, authenticated, service_role;
grant execute on function public.has_visible_character(text) to service_role;

-- The rule for one free-text field of at most p_max characters: { "text": <as kept> } or
-- { "problem": <why> } (checkFreeText in text_rules.ts).
create or replace function public.check_free_text(p_raw text, p_max integer)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select case
    when public.text_character_problem(p_raw) is not null
      then jsonb_build_object('problem', public.text_character_problem(p_raw))
    when t.text = '' then jsonb_build_object('problem', 'must not be empty')
    when length(t.text) > p_max
      then jsonb_build_object('problem', format('must be at most %s characters', p_max))
    when not public.has_visible_character(t.text) then jsonb_build_object('problem', 'must contain a visible character')
    else jsonb_build_object('text', t.text)
  end
  from (select normalize(public.trim_text(p_raw), nfc) as text) t;
$$;

revoke execute on function public.check_free_text(text, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.check_free_text(text, integer) to service_role;

-- An optional field: only spaces is none ({ "text": null }); anything else follows check_free_text
-- (checkOptionalFreeText).
create or replace function public.check_optional_free_text(p_raw text, p_max integer)
returns jsonb
language sql
immutable
set search_path = ''
as $$
  select case
    when public.trim_text(p_raw) = '' and public.text_character_problem(p_raw) is null
      then jsonb_build_object('text', null)
    else public.check_free_text(p_raw, p_max)
  end;
$$;

revoke execute on function public.check_optional_free_text(text, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.check_optional_free_text(text, integer) to service_role;

-- A phone in E.164 once its separators are removed (null: it is not one); at most 40 characters as given
-- (normalisePhone in phone_number.ts). The separators are hyphens, dots, parentheses and every space of
-- Unicode, as the contract's "spaces" says: a number pasted from the phone's contacts or a word processor
-- carries no-break spaces (U+00A0, U+202F) between its groups, and `+91 98450 12345` written with them is
-- the same number. The spaces are Unicode's general category Zs, listed as phone_number.ts's PHONE_SPACES
-- lists them (tests/phone_number_test.ts holds that list to \p{Zs}); a tab, a line break or a line
-- separator is no separator.
create or replace function public.normalise_phone(p_phone text)
returns text
language sql
immutable
set search_path = ''
as $$
  select c.phone
  from (
    select regexp_replace(
      p_phone,
      '[\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000().-]',
      '',
      'g'
    ) as phone
  ) c
  where length(p_phone) <= 40 and c.phone ~ '^\+[1-9][0-9]{6,14}$';
$$;

revoke execute on function public.normalise_phone(text) from public, anon, authenticated, service_role;
grant execute on function public.normalise_phone(text) to service_role;

-- The officially assigned ISO 3166-1 alpha-2 codes (249), upper-case, as iso_countries.ts lists them.
create or replace function public.is_country_code(p_code text)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(p_code = any ('{
    AD,AE,AF,AG,AI,AL,AM,AO,AQ,AR,AS,AT,AU,AW,AX,AZ,BA,BB,BD,BE,BF,BG,BH,BI,BJ,BL,BM,BN,BO,BQ,BR,BS,BT,
    BV,BW,BY,BZ,CA,CC,CD,CF,CG,CH,CI,CK,CL,CM,CN,CO,CR,CU,CV,CW,CX,CY,CZ,DE,DJ,DK,DM,DO,DZ,EC,EE,EG,EH,
    ER,ES,ET,FI,FJ,FK,FM,FO,FR,GA,GB,GD,GE,GF,GG,GH,GI,GL,GM,GN,GP,GQ,GR,GS,GT,GU,GW,GY,HK,HM,HN,HR,HT,
    HU,ID,IE,IL,IM,IN,IO,IQ,IR,IS,IT,JE,JM,JO,JP,KE,KG,KH,KI,KM,KN,KP,KR,KW,KY,KZ,LA,LB,LC,LI,LK,LR,LS,
    LT,LU,LV,LY,MA,MC,MD,ME,MF,MG,MH,MK,ML,MM,MN,MO,MP,MQ,MR,MS,MT,MU,MV,MW,MX,MY,MZ,NA,NC,NE,NF,NG,NI,
    NL,NO,NP,NR,NU,NZ,OM,PA,PE,PF,PG,PH,PK,PL,PM,PN,PR,PS,PT,PW,PY,QA,RE,RO,RS,RU,RW,SA,SB,SC,SD,SE,SG,
    SH,SI,SJ,SK,SL,SM,SN,SO,SR,SS,ST,SV,SX,SY,SZ,TC,TD,TF,TG,TH,TJ,TK,TL,TM,TN,TO,TR,TT,TV,TW,TZ,UA,UG,
    UM,US,UY,UZ,VA,VC,VE,VG,VI,VN,VU,WF,WS,YE,YT,ZA,ZM,ZW
  }'::text[]), false);
$$;

revoke execute on function public.is_country_code(text) from public, anon, authenticated, service_role;
grant execute on function public.is_country_code(text) to service_role;

-- Whether p_host (between the brackets) is an IPv6 address as the URL serialiser writes it: lower-case hex
-- without leading zeros, the longest run of two or more zero groups (the first of equals) written ::, no
-- dotted IPv4 tail (`[0:0::1]` is `[::1]`).
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

revoke execute on function public.is_canonical_ipv6(text) from public, anon, authenticated, service_role;
grant execute on function public.is_canonical_ipv6(text) to service_role;

-- A proof link as the function stores it: the serialisation of an absolute http(s) URL of at most p_max
-- characters, without user name or password. So it refuses what a serialisation never holds: an upper-case
-- scheme or host, a non-canonical IPv4 or IPv6 host, anything but printable ASCII; in the path the
-- characters the serialiser percent-encodes there (" < > ` { }), the backslash (read as a slash) and dot
-- segments (`.`, `..`, `%2e` and their mixes, removed by the parser); in the query " < > and ' (encoded for
-- http and https); in the fragment " < > and `; and the scheme's default port (:443 for https, :80 for
-- http), which the serialiser drops. Not checked: that an `xn--` label is valid Punycode (the parser refuses
-- `xn--zz`; the database keeps it). tests/order_text_rule_test.ts runs every case of its table through both
-- (Deno's URL parser is the reference: it leaves ^ and | raw in a path, ' and ` raw in a fragment).
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

revoke execute on function public.is_http_url(text, integer) from public, anon, authenticated, service_role;
grant execute on function public.is_http_url(text, integer) to service_role;

-- Every text field of a create_order payload under the rule: the issues ([{ path, message }], paths as the
-- payload spells them: buyer.name, shippingAddress.line1, ...) and the values as kept. The e-mail is left to
-- is_email_address (OCB00). Unknown fields of buyer and shippingAddress are issues too: the address is
-- stored as given, and nothing the rule did not see may ride along.
create or replace function public.order_text_rule(p_payload jsonb)
returns jsonb
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_issues jsonb := '[]'::jsonb;
  v_buyer jsonb := p_payload -> 'buyer';
  v_address jsonb := p_payload -> 'shippingAddress';
  v_proof jsonb := coalesce(p_payload -> 'paymentProofUrl', 'null'::jsonb);
  v_kept_buyer jsonb;
  v_kept_address jsonb := '{}'::jsonb;
  v_field record;
  v_value jsonb;
  v_checked jsonb;
  v_phone text;
  v_country text;
begin
  if jsonb_typeof(v_buyer) is distinct from 'object' then
    v_issues := v_issues || jsonb_build_object('path', 'buyer', 'message', 'buyer must be an object');
    v_buyer := '{}'::jsonb;
  end if;
  if jsonb_typeof(v_address) is distinct from 'object' then
    v_issues := v_issues || jsonb_build_object('path', 'shippingAddress', 'message', 'shippingAddress must be an object');
    v_address := '{}'::jsonb;
  end if;
  v_issues := v_issues || coalesce((
    select jsonb_agg(jsonb_build_object('path', k.path, 'message', 'unknown field') order by k.path)
    from (
      select 'buyer.' || b.key as path from jsonb_object_keys(v_buyer) as b(key)
      where b.key not in ('email', 'name', 'phone')
      union all
      select 'shippingAddress.' || a.key from jsonb_object_keys(v_address) as a(key)
      where a.key not in ('line1', 'line2', 'city', 'state', 'postalCode', 'country')
    ) k
  ), '[]'::jsonb);

  v_kept_buyer := jsonb_build_object('email', v_buyer -> 'email');
  for v_field in
    select f.path, f.object, f.name, f.max_length, f.optional
    from (values
      (1, 'buyer.name', 'buyer', 'name', 200, false),
      (2, 'shippingAddress.line1', 'address', 'line1', 200, false),
      (3, 'shippingAddress.line2', 'address', 'line2', 200, true),
      (4, 'shippingAddress.city', 'address', 'city', 200, false),
      (5, 'shippingAddress.state', 'address', 'state', 200, false),
      (6, 'shippingAddress.postalCode', 'address', 'postalCode', 20, false)
    ) as f(position, path, object, name, max_length, optional)
    order by f.position
  loop
    v_value := case when v_field.object = 'buyer' then v_buyer else v_address end -> v_field.name;
    v_checked := case
      when v_field.optional and coalesce(v_value, 'null'::jsonb) = 'null'::jsonb then jsonb_build_object('text', null)
      when v_value is null then jsonb_build_object('problem', 'is required')
      when jsonb_typeof(v_value) <> 'string' then jsonb_build_object('problem', 'must be a string')
      when v_field.optional then public.check_optional_free_text(v_value #>> '{}', v_field.max_length)
      else public.check_free_text(v_value #>> '{}', v_field.max_length)
    end;
    if v_checked ? 'problem' then
      v_issues := v_issues || jsonb_build_object(
        'path', v_field.path, 'message', v_field.name || ' ' || (v_checked ->> 'problem')
      );
    elsif v_field.object = 'buyer' then
      v_kept_buyer := v_kept_buyer || jsonb_build_object(v_field.name, v_checked -> 'text');
    else
      v_kept_address := v_kept_address || jsonb_build_object(v_field.name, v_checked -> 'text');
    end if;
  end loop;

  v_value := v_buyer -> 'phone';
  v_phone := case when jsonb_typeof(v_value) = 'string' then public.normalise_phone(v_value #>> '{}') end;
  if v_phone is null then
    v_issues := v_issues || jsonb_build_object(
      'path', 'buyer.phone', 'message', 'phone must be + and the country code (not 0), then 7 to 15 digits in all'
    );
  end if;
  v_kept_buyer := v_kept_buyer || jsonb_build_object('phone', v_phone);

  -- ASCII letters only before upper-casing, as the schema: "ıN" and "ſe" would become IN and SE
  v_value := v_address -> 'country';
  v_country := case when jsonb_typeof(v_value) = 'string' then public.trim_text(v_value #>> '{}') end;
  if v_country is null or v_country !~ '^[A-Za-z]{2}$' or not public.is_country_code(upper(v_country)) then
    v_issues := v_issues || jsonb_build_object(
      'path', 'shippingAddress.country', 'message', 'country must be an assigned ISO 3166-1 alpha-2 code'
    );
  end if;
  v_kept_address := v_kept_address || jsonb_build_object('country', upper(v_country));

  if v_proof <> 'null'::jsonb then
    if jsonb_typeof(v_proof) <> 'string' or not public.is_http_url(v_proof #>> '{}', 2048) then
      v_issues := v_issues || jsonb_build_object(
        'path', 'paymentProofUrl',
        'message', 'paymentProofUrl must be an absolute http or https URL of at most 2048 characters, as the function stores it'
      );
    end if;
  elsif p_payload ->> 'paymentMethod' = 'upi_direct' then
    v_issues := v_issues || jsonb_build_object('path', 'paymentProofUrl', 'message', 'paymentProofUrl is required for upi_direct');
  end if;

  return jsonb_build_object(
    'issues', v_issues, 'buyer', v_kept_buyer, 'shippingAddress', v_kept_address,
    'paymentProofUrl', v_proof #>> '{}'
  );
end;
$$;

revoke execute on function public.order_text_rule(jsonb) from public, anon, authenticated, service_role;
grant execute on function public.order_text_rule(jsonb) to service_role;

-- The free-text rule a direct caller must keep too (a move's note, carrier and tracking number; the
-- providers' ids in payments and refunds): present, at most p_max characters, one line with no control,
-- line-break or bidi character (the functions' text rule also refuses invisible-only text).
create or replace function public.is_one_line_text(p_text text, p_max integer)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(
    btrim(p_text) <> '' and length(p_text) <= p_max
      and p_text !~ '[\x01-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]',
    false
  );
$$;

revoke execute on function public.is_one_line_text(text, integer)
  from public, anon, authenticated, service_role;
grant execute on function public.is_one_line_text(text, integer) to service_role;

-- The contract's buyer e-mail shape, as the function's validator (email_address.ts) checks it: at most 254
-- chars; a dot-atom local part of at most 64 chars; a domain of at least two labels of letters, digits and
-- inner hyphens (at most 63 chars each), the last one letters or an xn-- IDN label. No quoted local parts, no
-- IP literals, no white space or control characters anywhere.
create or replace function public.is_email_address(p_address text)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(
    length(p_address) <= 254
      and length(split_part(p_address, '@', 1)) <= 64
      and p_address ~ ('^[A-Za-z0-9!#$%&''*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&''*+/=?^_`{|}~-]+)*'
        || '@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+'
        || '([A-Za-z]{1,63}|[Xx][Nn]--[A-Za-z0-9-]{0,58}[A-Za-z0-9])$'),
    false
  );
$$;

revoke execute on function public.is_email_address(text) from public, anon, authenticated, service_role;
grant execute on function public.is_email_address(text) to service_role;
