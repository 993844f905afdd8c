// @ollie/config-file/dirs: where Ollie's files are, by the XDG variables. An entry of its own so that a program
// that needs only the directories (@ollie/client) loads neither zod nor yaml.

export { type OllieDirs, ollieDirs, type XdgDirs, xdgDirs } from "./ollie-dirs.js";
