/** IPv4 clients of a dual-stack socket show up as ::ffff:a.b.c.d; logged, counted and throttled as a.b.c.d. */
export function unmapIPv4(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}
