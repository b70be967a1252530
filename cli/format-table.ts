/**
 * Plain aligned text columns for terminal listings; numbers right-aligned.
 * @example process.stdout.write(formatTable(['id', 'calls'], [['run-1', 3]]))
 */
export function formatTable(headers: string[], rows: Array<Array<string | number | null>>): string {
  const cells = rows.map((row) => row.map((cell) => (cell === null ? '-' : String(cell))));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => (row[column] ?? '').length)));
  const numeric = headers.map((_, column) => rows.length > 0 && rows.every((row) => typeof row[column] === 'number' || row[column] === null));
  const line = (row: string[]): string =>
    row
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n') + '\n';
}
