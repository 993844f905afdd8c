/** The path lists of a policy's `filesystem`, from least to most access. */
export const PATH_LISTS = ["ro", "rox", "rw", "rwx"] as const;

export type PathList = (typeof PATH_LISTS)[number];
