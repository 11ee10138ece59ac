/** The sum of a metric's samples whose labels include `labels`, from a Prometheus text exposition; 0 when none. */
export async function readMetric(metricsUrl: string, name: string, labels: Record<string, string> = {}, init: RequestInit = {}): Promise<number> {
  const text = await (await fetch(metricsUrl, init)).text();
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  let sum = 0;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? "").split(",");
    if (wanted.every((label) => present.includes(label))) sum += Number(match[3]);
  }
  return sum;
}
