/**
 * Write-ahead log of one run: a checkpoint, `pg_current_wal_lsn()` before and after, and, since the
 * server is shared and the LSN is the whole cluster's, the records of that span read back with
 * pg_walinspect and attributed to the bench database: a record is its own when it touches a block of
 * that database, or belongs to a transaction (or commits subtransactions) that did. A temporary physical
 * replication slot keeps the span's WAL segments until they are read.
 */
import type { Sql } from "postgres";

/** WAL of one run. */
export interface WalUsage {
  /** End LSN minus start LSN: everything the cluster wrote, page headers included. */
  lsnBytes: number;
  /**
   * The bench database's share of the span's record bytes (each record MAXALIGNed to 8, as laid out),
   * or null when the records could not be read back (no pg_walinspect, WAL gone).
   */
  ownShare: number | null;
  /** lsnBytes x ownShare: the bench database's WAL, page headers shared out pro rata. */
  ownBytes: number;
  /** Bytes of full-page images in the bench database's records (0 when unread). */
  ownFpiBytes: number;
  ownRecords: number;
  /**
   * Checkpoint records inside the span: checkpoints besides the bench's own, which ends just before it
   * (timed, or requested by other sessions of the shared server, e.g. DROP DATABASE). Each makes the next
   * change to every page write a full-page image again. Null when unread.
   */
  otherCheckpoints: number | null;
  /**
   * The bench database's records by kind ("<resource manager> <record type>", e.g. "Heap UPDATE"): bytes
   * as laid out (MAXALIGNed, page headers not included), of which full-page images, and count.
   */
  ownByKind: Record<string, { bytes: number; fpiBytes: number; records: number }>;
  /**
   * The same records by the relation of their first block (a table, an index, a sequence of the bench
   * database, by name; "(no block)" for commits and other records without one), as `ownByKind`.
   */
  ownByRelation: Record<string, { bytes: number; fpiBytes: number; records: number }>;
}

/** A span being measured: {@linkcode WalSpan.close} takes the end LSN and reads the records. */
export interface WalSpan {
  start: string;
  /** The end LSN now (call once the run's work, e-mail results included, is committed). */
  end(): Promise<string>;
  /** Attributes the span's records and drops the slot. */
  close(end: string): Promise<WalUsage>;
}

// One row per (own, kind): a kind is "<resource manager> <record type>", named for the bench database's
// records and for checkpoints (everyone else's records are summed without one).
const _RECORDS_SQL = `
with records as materialized (
  select xid::text::bigint as xid, record_length, fpi_length, block_ref ~ $3 as own_block,
    (regexp_match(block_ref, $3 || '([0-9]+)'))[1] as rel,
    resource_manager || ' ' || record_type as kind,
    case when resource_manager = 'Transaction' then
      string_to_array(btrim((regexp_match(description, 'subxacts:([ 0-9]+)'))[1]), ' ')::bigint[]
    end as subxids
  from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
),
own_xids as materialized (select distinct xid from records where own_block and xid <> 0),
marked as (
  select r.record_length, r.fpi_length, r.kind, r.rel,
    r.own_block or o.xid is not null or
      (r.subxids is not null and exists (select 1 from own_xids s where s.xid = any(r.subxids))) as own
  from records r left join own_xids o on o.xid = r.xid and r.xid <> 0
)
select own, case when own or kind like 'XLOG CHECKPOINT%' then kind end as kind, case when own then rel end as rel,
  sum((record_length + 7) / 8 * 8)::text as bytes, sum(fpi_length)::text as fpi_bytes, count(*)::text as records
from marked group by 1, 2, 3`;

interface _KindRow {
  own: boolean;
  kind: string | null;
  /** The relfilenode of the record's first block in the bench database, if any. */
  rel: string | null;
  bytes: string;
  fpi_bytes: string;
  records: string;
}

let _slots = 0;

/**
 * Opens a span on the meter session `meter` (a database other than the bench's, so these queries are
 * not counted among the bench database's transactions): slot, checkpoint, start LSN. `relationNames`
 * names the bench database's relations by relfilenode.
 */
export async function openWalSpan(
  meter: Sql,
  benchDatabaseOid: number,
  relationNames: Record<string, string> = {},
): Promise<WalSpan> {
  const slot = `bench_wal_${Deno.pid}_${++_slots}`;
  let slotHeld = false;
  try {
    await meter.unsafe("select pg_create_physical_replication_slot($1, true, true)", [slot]);
    slotHeld = true;
  } catch { /* no slot: the records are read back unless a checkpoint recycles them first */ }
  await meter.unsafe("checkpoint");
  const [{ lsn: start }] = await meter.unsafe<{ lsn: string }[]>("select pg_current_wal_lsn()::text as lsn");
  return {
    start,
    async end() {
      const [{ lsn }] = await meter.unsafe<{ lsn: string }[]>("select pg_current_wal_lsn()::text as lsn");
      return lsn;
    },
    async close(end) {
      try {
        const [{ bytes }] = await meter.unsafe<{ bytes: string }[]>(
          "select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text as bytes",
          [end, start],
        );
        const lsnBytes = Number(bytes);
        const unread = {
          lsnBytes,
          ownShare: null,
          ownBytes: lsnBytes,
          ownFpiBytes: 0,
          ownRecords: 0,
          otherCheckpoints: null,
          ownByKind: {},
          ownByRelation: {},
        };
        if (lsnBytes <= 0) return { ...unread, ownShare: 1, ownBytes: 0, otherCheckpoints: 0 };
        try {
          await _waitFlushed(meter, end);
          const rows = await meter.unsafe<_KindRow[]>(
            _RECORDS_SQL,
            [start, end, `rel [0-9]+/${benchDatabaseOid}/`],
          );
          return _attribute(lsnBytes, rows, relationNames);
        } catch {
          return unread;
        }
      } finally {
        if (slotHeld) await meter.unsafe("select pg_drop_replication_slot($1)", [slot]).catch(() => {});
      }
    },
  };
}

/** Sums the grouped rows of the span's records into a {@linkcode WalUsage}. */
function _attribute(lsnBytes: number, rows: _KindRow[], relationNames: Record<string, string>): WalUsage {
  let all = 0;
  let own = 0;
  let ownFpiBytes = 0;
  let ownRecords = 0;
  let otherCheckpoints = 0;
  const ownByKind: WalUsage["ownByKind"] = {};
  const ownByRelation: WalUsage["ownByRelation"] = {};
  const add = (into: WalUsage["ownByKind"], key: string, row: _KindRow) => {
    const sum = into[key] ??= { bytes: 0, fpiBytes: 0, records: 0 };
    sum.bytes += Number(row.bytes);
    sum.fpiBytes += Number(row.fpi_bytes);
    sum.records += Number(row.records);
  };
  for (const row of rows) {
    const bytes = Number(row.bytes);
    all += bytes;
    if (!row.own) {
      if (row.kind) otherCheckpoints += Number(row.records);
      continue;
    }
    own += bytes;
    ownFpiBytes += Number(row.fpi_bytes);
    ownRecords += Number(row.records);
    add(ownByKind, row.kind!, row);
    add(
      ownByRelation,
      row.rel === null ? "(no block)" : relationNames[row.rel] ?? `relfilenode ${row.rel}`,
      row,
    );
  }
  const ownShare = all > 0 ? own / all : 0;
  return {
    lsnBytes,
    ownShare,
    ownBytes: lsnBytes * ownShare,
    ownFpiBytes,
    ownRecords,
    otherCheckpoints,
    ownByKind,
    ownByRelation,
  };
}

/** pg_walinspect reads only flushed WAL: waits (up to 5 s) until the flush LSN passes `lsn`. */
async function _waitFlushed(meter: Sql, lsn: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 50) {
    const [{ flushed }] = await meter.unsafe<{ flushed: boolean }[]>(
      "select pg_current_wal_flush_lsn() >= $1::pg_lsn as flushed",
      [lsn],
    );
    if (flushed) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
