-- The text rule's lengths in characters (code points), as the contract's "1-200 chars" means them, as the
-- columns' own checks count them (length(buyer_name) between 1 and 200) and as openapi.json's maxLength
-- does: a name of 101 emoji is 101 characters. check_free_text (20261126000700_order_text_rule.sql) counted
-- UTF-16 code units, as JavaScript's `length` does, so such a name was refused by create_order (and by the
-- function's schema, which now counts characters too: text_rules.ts's characterCount) while the column
-- and the document took it. Only the count changes; utf16_length, which nothing else calls, goes.
-- tests/order_text_rule_test.ts runs its table of examples, astral characters at each boundary included,
-- through both.

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

revoke execute on function public.check_free_text(text, integer) from public, anon, authenticated;
grant execute on function public.check_free_text(text, integer) to service_role;

drop function public.utf16_length(text);
