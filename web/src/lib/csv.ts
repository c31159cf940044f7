/** One CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
function field(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows as CSV text with a header line of `columns`, CRLF line ends. */
export function toCsv<T extends Record<string, unknown>>(columns: (keyof T & string)[], rows: T[]) {
  return [columns, ...rows.map((row) => columns.map((c) => row[c]))]
    .map((line) => line.map(field).join(','))
    .join('\r\n');
}

/** Makes the browser save `text` as file `name`. */
export function download(name: string, text: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}
