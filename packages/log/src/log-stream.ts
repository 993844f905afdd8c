/** Where lines go: anything with a `write(string)`, such as process.stderr. Each line is one `write`. */
export interface LogStream {
  write(chunk: string): unknown;
}
