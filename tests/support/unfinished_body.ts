/** A request whose body never finishes, over a raw TCP connection, so the test alone decides when it ends. */

/** The server's answer to a request that sent its headers and part of its body, then nothing more. */
export async function postUnfinishedBody(
  url: string,
  headers: Record<string, string>,
  start: string,
): Promise<{ status: number; body: unknown }> {
  const { hostname, port, pathname } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const head = [
      `POST ${pathname} HTTP/1.1`,
      `Host: ${hostname}:${port}`,
      "Content-Type: application/json",
      `Content-Length: ${start.length + 1000}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(`${head}\r\n\r\n${start}`));
    let text = "";
    const buffer = new Uint8Array(16_384);
    for (;;) {
      const read = await conn.read(buffer);
      if (read === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, read));
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
      if (end >= 0 && text.length >= end + 4 + length) break;
    }
    const [statusLine] = text.split("\r\n");
    const body = text.slice(text.indexOf("\r\n\r\n") + 4);
    return { status: Number(statusLine.split(" ")[1]), body: JSON.parse(body) };
  } finally {
    conn.close();
  }
}
