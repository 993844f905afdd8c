/** A bypass request's id, as its directory is named and as the command line must give it. */
export const REQUEST_ID = /^[1-9]\d*$/;
