/**
 * zod as the functions use it: without its just-in-time parsers. zod 4 compiles each object schema's parser
 * with `new Function` on its first parse, a few milliseconds of every cold start (create-order's request
 * schema), and parsed an order no faster afterwards when measured (about 50 µs either way).
 */
import { z } from "zod";

z.config({ jitless: true });

export { z };
