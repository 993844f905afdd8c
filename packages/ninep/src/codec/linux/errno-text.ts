/** The words Linux gives the errnos a 9P2000.L server sends (as strerror says them). */
const TEXT: Record<number, string> = {
  1: "Operation not permitted",
  2: "No such file or directory",
  4: "Interrupted system call",
  5: "Input/output error",
  9: "Bad file descriptor",
  13: "Permission denied",
  17: "File exists",
  18: "Invalid cross-device link",
  20: "Not a directory",
  21: "Is a directory",
  22: "Invalid argument",
  27: "File too large",
  28: "No space left on device",
  34: "Numerical result out of range",
  38: "Function not implemented",
  39: "Directory not empty",
  61: "No data available",
  71: "Protocol error",
  95: "Operation not supported",
};

/** An Rlerror's errno in words: `No such file or directory`, or `error 123` for one not in the table. */
export const errnoText = (errno: number): string => TEXT[errno] ?? `error ${errno}`;
