-- A phone number's spaces are every space of Unicode, as the contract's "spaces" says: a number pasted from
-- the phone's contacts or a word processor carries no-break spaces (U+00A0, U+202F) between its groups, and
-- `+91 98450 12345` written with them is the same number. The characters are Unicode's general category Zs,
-- listed as phone_number.ts's PHONE_SPACES lists them (tests/phone_number_test.ts holds that list to \p{Zs});
-- a tab, a line break or a line separator is still no separator. Everything else as
-- 20261126000700_order_text_rule.sql: E.164 once the separators are removed, at most 40 characters as given.

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

revoke execute on function public.normalise_phone(text) from public, anon, authenticated;
grant execute on function public.normalise_phone(text) to service_role;
