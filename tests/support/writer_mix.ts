/**
 * A mix of database writers run at once, as a busy store runs them: `clients` sessions, each picking a
 * writer by weight and running it in its own transaction (as service_role, as PostgREST does) until the
 * time is up. Every outcome is counted per writer: committed, or failed with its SQLSTATE. The writers
 * are the caller's (see order_writer_mix.ts), so a later writer joins the mix by adding an entry.
 */
import type { SqlDatabase, SqlSession } from "../../local/sql_database.ts";

/**
 * One writer of the mix: one transaction's work, which throws the database's error when it fails. What it
 * returns, if anything, runs once the transaction has committed (say, to offer its new order to the others:
 * before the commit they could not see it).
 */
export interface MixWriter {
  name: string;
  /** How often it runs, relative to the other writers' weights. */
  weight: number;
  run(session: SqlSession, random: () => number): Promise<void | (() => void)>;
}

/** What one writer did in a run. */
export interface WriterCounts {
  committed: number;
  /** Failed transactions by SQLSTATE ("none" for an error without one). */
  failed: Record<string, number>;
}

/** A run's outcome. */
export interface MixResult {
  clients: number;
  durationMs: number;
  writers: Record<string, WriterCounts>;
}

/** A small seeded generator (mulberry32), so a run's choices can be repeated. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `writers` on `clients` concurrent sessions of `db` for `durationMs`; counts every outcome. */
export async function runWriterMix(
  db: SqlDatabase,
  writers: readonly MixWriter[],
  options: { clients: number; durationMs: number; seed?: number },
): Promise<MixResult> {
  const counts: Record<string, WriterCounts> = Object.fromEntries(
    writers.map((w) => [w.name, { committed: 0, failed: {} }]),
  );
  const totalWeight = writers.reduce((sum, w) => sum + w.weight, 0);
  const started = Date.now();
  const end = started + options.durationMs;
  const client = async (index: number) => {
    const random = seededRandom((options.seed ?? 17) * 1_000 + index);
    while (Date.now() < end) {
      const writer = _pick(writers, random() * totalWeight);
      try {
        const committed = await db.asRole("service_role", (session) => writer.run(session, random));
        counts[writer.name].committed++;
        committed?.();
      } catch (error) {
        const code = (error as { code?: string }).code ?? "none";
        counts[writer.name].failed[code] = (counts[writer.name].failed[code] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  return { clients: options.clients, durationMs: Date.now() - started, writers: counts };
}

function _pick(writers: readonly MixWriter[], at: number): MixWriter {
  for (const writer of writers) {
    if (at < writer.weight) return writer;
    at -= writer.weight;
  }
  return writers[writers.length - 1];
}

/** The failures of every writer with one of `codes`, summed. */
export function failuresWith(result: MixResult, ...codes: string[]): number {
  return Object.values(result.writers).reduce(
    (sum, w) => sum + codes.reduce((n, code) => n + (w.failed[code] ?? 0), 0),
    0,
  );
}

/** The run as a Markdown table: transactions per writer, committed, failed by SQLSTATE. */
export function mixTable(result: MixResult): string {
  const codes = [...new Set(Object.values(result.writers).flatMap((w) => Object.keys(w.failed)))].sort();
  const header = ["writer", "transactions", "committed", ...codes.map((c) => `failed ${c}`)];
  const rows = Object.entries(result.writers).map(([name, w]) => {
    const failed = Object.values(w.failed).reduce((a, b) => a + b, 0);
    return [
      name,
      String(w.committed + failed),
      String(w.committed),
      ...codes.map((c) => String(w.failed[c] ?? 0)),
    ];
  });
  return [header, header.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
}
