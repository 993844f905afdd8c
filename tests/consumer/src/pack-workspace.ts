// Packing is the root's `npm run pack` (scripts/pack.mjs): the tests install what a user installs before the
// packages are published, from the same tarballs.
export { MONOREPO, pack, publishablePackages } from "../../../scripts/pack.mjs";
