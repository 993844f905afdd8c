/** How a request builder reports a setting it had to change or leave out. */
export type Warn = (message: string) => void;
