-- A store's currency is one of the ISO 4217 codes in use whose minor unit is the hundredth, the list of
-- local/currencies.ts (STORE_CURRENCIES), which deno task store:add checks. The table's own check was only
-- three capital letters, so a store inserted with the service key or in Studio could be priced in `ABC`,
-- `XXX` (no money) or `JPY`/`KWD` (whose amounts this service, counting hundredths everywhere, would get
-- wrong). The list is written out here once; tests/store_currencies_test.ts holds is_store_currency to
-- STORE_CURRENCIES over every three-letter code, so the two cannot drift: a change of the list is a new
-- migration that replaces this function.
create or replace function public.is_store_currency(p_code text)
returns boolean
language sql
immutable
set search_path = ''
as $$
  select coalesce(p_code = any ('{
    AED,AFN,ALL,AMD,AOA,ARS,AUD,AWG,AZN,BAM,BBD,BDT,BMD,BND,BOB,BRL,BSD,BTN,BWP,BYN,BZD,CAD,CDF,CHF,
    CNY,COP,CRC,CUP,CVE,CZK,DKK,DOP,DZD,EGP,ERN,ETB,EUR,FJD,FKP,GBP,GEL,GHS,GIP,GMD,GTQ,GYD,HKD,HNL,
    HTG,HUF,IDR,ILS,INR,IRR,JMD,KES,KGS,KHR,KPW,KYD,KZT,LAK,LBP,LKR,LRD,LSL,MAD,MDL,MGA,MKD,MMK,MNT,
    MOP,MRU,MUR,MVR,MWK,MXN,MYR,MZN,NAD,NGN,NIO,NOK,NPR,NZD,PAB,PEN,PGK,PHP,PKR,PLN,QAR,RON,RSD,RUB,
    SAR,SBD,SCR,SDG,SEK,SGD,SHP,SLE,SOS,SRD,SSP,STN,SVC,SYP,SZL,THB,TJS,TMT,TOP,TRY,TTD,TWD,TZS,UAH,
    USD,UYU,UZS,VED,VES,WST,XCD,XCG,YER,ZAR,ZMW,ZWG
  }'::text[]), false);
$$;

revoke execute on function public.is_store_currency(text) from public, anon, authenticated;
grant execute on function public.is_store_currency(text) to service_role;

-- A store already in a currency outside the list stops the migration, named with its code, before the check
-- would refuse it anonymously: its seller decides its currency (its orders keep the one they were priced in).
do $$
declare
  v_refused text;
begin
  select string_agg(format('%s (%s)', s.id, s.currency), ', ' order by s.id) into v_refused
  from public.stores s where not public.is_store_currency(s.currency);
  if v_refused is not null then
    raise exception 'stores with a currency that is no ISO 4217 code in use with two decimals (local/currencies.ts): %', v_refused
      using hint = 'update public.stores set currency = ''<a code of local/currencies.ts, e.g. INR>'' where id = ''<id>''; then run the migrations again';
  end if;
end
$$;

alter table public.stores
  drop constraint stores_currency_check,
  add constraint stores_currency_check check (public.is_store_currency(currency));
