/** A response's headers as undici gives them: a name may repeat (an array) or be absent. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;
