/** Reads one sample from a gateway's /metrics (text exposition): the value of `name{labels...}`, 0 when absent. */
export async function metricValue(base: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return sampleValue(await (await fetch(`${base}/metrics`)).text(), name, labels);
}

/** The value of the sample `name` whose labels include all of `labels`, from exposition text; 0 when absent. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}
